CREATE TABLE "buckets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"name" text NOT NULL,
	"region" text,
	"created_on" timestamp with time zone,
	"object_count" bigint DEFAULT 0 NOT NULL,
	"total_bytes" bigint DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" text,
	"inventoried_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "buckets" ADD CONSTRAINT "buckets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "buckets" ADD CONSTRAINT "buckets_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "buckets_account_name_key" ON "buckets" USING btree ("cloud_account_id","name");--> statement-breakpoint
CREATE INDEX "buckets_org_idx" ON "buckets" USING btree ("organization_id");