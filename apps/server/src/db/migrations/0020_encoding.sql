CREATE TABLE "encoding_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid,
	"source_cloud_account_id" uuid NOT NULL,
	"source_bucket" text NOT NULL,
	"source_path" text NOT NULL,
	"source_size" bigint NOT NULL,
	"destination_cloud_account_id" uuid NOT NULL,
	"destination_bucket" text NOT NULL,
	"destination_path" text NOT NULL,
	"category" text NOT NULL,
	"preset" text NOT NULL,
	"status" text DEFAULT 'New' NOT NULL,
	"progress" real DEFAULT 0 NOT NULL,
	"time_left" real,
	"error" text,
	"outputs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "encoding_jobs" ADD CONSTRAINT "encoding_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "encoding_jobs" ADD CONSTRAINT "encoding_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "encoding_jobs" ADD CONSTRAINT "encoding_jobs_source_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("source_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "encoding_jobs" ADD CONSTRAINT "encoding_jobs_destination_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("destination_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "encoding_jobs_org_idx" ON "encoding_jobs" USING btree ("organization_id","created_at");