CREATE TABLE "role_access_levels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"role_id" smallint NOT NULL,
	"service" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "role_permissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"role_access_level_id" uuid NOT NULL,
	"attribute" text NOT NULL,
	"value" bigint DEFAULT -1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_access_levels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"service" text NOT NULL,
	"enabled" boolean
);
--> statement-breakpoint
CREATE TABLE "user_permissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_access_level_id" uuid NOT NULL,
	"attribute" text NOT NULL,
	"value" bigint
);
--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD COLUMN "size_limit" bigint;--> statement-breakpoint
ALTER TABLE "role_access_levels" ADD CONSTRAINT "role_access_levels_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_access_levels" ADD CONSTRAINT "role_access_levels_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_permissions" ADD CONSTRAINT "role_permissions_role_access_level_id_role_access_levels_id_fk" FOREIGN KEY ("role_access_level_id") REFERENCES "public"."role_access_levels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_access_levels" ADD CONSTRAINT "user_access_levels_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_access_levels" ADD CONSTRAINT "user_access_levels_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_permissions" ADD CONSTRAINT "user_permissions_user_access_level_id_user_access_levels_id_fk" FOREIGN KEY ("user_access_level_id") REFERENCES "public"."user_access_levels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "role_access_levels_key" ON "role_access_levels" USING btree ("organization_id","role_id","service");--> statement-breakpoint
CREATE UNIQUE INDEX "role_permissions_key" ON "role_permissions" USING btree ("role_access_level_id","attribute");--> statement-breakpoint
CREATE UNIQUE INDEX "user_access_levels_key" ON "user_access_levels" USING btree ("user_id","service");--> statement-breakpoint
CREATE INDEX "user_access_levels_org_idx" ON "user_access_levels" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "user_permissions_key" ON "user_permissions" USING btree ("user_access_level_id","attribute");