CREATE TABLE "hybrik_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid,
	"profile_id" uuid,
	"name" text NOT NULL,
	"job" jsonb NOT NULL,
	"source_cloud_account_id" uuid NOT NULL,
	"source_bucket" text NOT NULL,
	"source_path" text NOT NULL,
	"output_cloud_account_id" uuid NOT NULL,
	"output_bucket" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"progress" real DEFAULT 0 NOT NULL,
	"error" text,
	"outputs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "hybrik_profiles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid,
	"name" text NOT NULL,
	"definitions" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"bucket" text NOT NULL,
	"object_key" text NOT NULL,
	"size" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hybrik_settings" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"bucket" text NOT NULL,
	"path" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "hybrik_jobs" ADD CONSTRAINT "hybrik_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_jobs" ADD CONSTRAINT "hybrik_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_jobs" ADD CONSTRAINT "hybrik_jobs_profile_id_hybrik_profiles_id_fk" FOREIGN KEY ("profile_id") REFERENCES "public"."hybrik_profiles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_jobs" ADD CONSTRAINT "hybrik_jobs_source_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("source_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_jobs" ADD CONSTRAINT "hybrik_jobs_output_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("output_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_profiles" ADD CONSTRAINT "hybrik_profiles_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_profiles" ADD CONSTRAINT "hybrik_profiles_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_profiles" ADD CONSTRAINT "hybrik_profiles_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_settings" ADD CONSTRAINT "hybrik_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hybrik_settings" ADD CONSTRAINT "hybrik_settings_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "hybrik_jobs_org_status_idx" ON "hybrik_jobs" USING btree ("organization_id","status","created_at");--> statement-breakpoint
CREATE INDEX "hybrik_profiles_org_idx" ON "hybrik_profiles" USING btree ("organization_id","created_at");