-- The three role titles of spec 000 §6 with fixed ids (packages/contract ROLES).
INSERT INTO "roles" ("id", "title") VALUES (1, 'Owner'), (2, 'Admin'), (3, 'User') ON CONFLICT ("id") DO NOTHING;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sign_in_limits" (
  "key" varchar(255) PRIMARY KEY,
  "points" integer NOT NULL DEFAULT 0,
  "expire" bigint
);
