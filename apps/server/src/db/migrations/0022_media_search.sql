-- Written by hand (drizzle-kit cannot express extensions): the trigram operator classes of the indexes below.
CREATE EXTENSION IF NOT EXISTS "pg_trgm";--> statement-breakpoint
CREATE TABLE "search_objects" (
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"bucket" text NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"size" bigint NOT NULL,
	"content_type" text,
	"extension" text NOT NULL,
	"last_modified" timestamp with time zone,
	"user_metadata" jsonb,
	"custom_metadata" jsonb,
	"media_info" jsonb,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"document" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, translate(name, '._-/', '    ')) || jsonb_to_tsvector('simple'::regconfig, coalesce(user_metadata, '{}'::jsonb), '["string", "numeric"]'::jsonb) || jsonb_to_tsvector('simple'::regconfig, coalesce(custom_metadata, '{}'::jsonb), '["string", "numeric"]'::jsonb) || jsonb_to_tsvector('simple'::regconfig, coalesce(media_info, '{}'::jsonb), '["string", "numeric"]'::jsonb)) STORED NOT NULL,
	CONSTRAINT "search_objects_organization_id_cloud_account_id_bucket_key_pk" PRIMARY KEY("organization_id","cloud_account_id","bucket","key")
);
--> statement-breakpoint
ALTER TABLE "search_objects" ADD CONSTRAINT "search_objects_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "search_objects" ADD CONSTRAINT "search_objects_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "search_objects_name_trgm" ON "search_objects" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "search_objects_key_trgm" ON "search_objects" USING gin ("key" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "search_objects_document" ON "search_objects" USING gin ("document");--> statement-breakpoint
CREATE INDEX "search_objects_org_name" ON "search_objects" USING btree ("organization_id","name");