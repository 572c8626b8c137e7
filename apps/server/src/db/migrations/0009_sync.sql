CREATE TABLE "sync_cycles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sync_job_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"trigger" text NOT NULL,
	"dry_run" boolean DEFAULT false NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"phase" text DEFAULT 'diffing' NOT NULL,
	"batch_id" uuid,
	"diff_cursor" text,
	"source_count" integer DEFAULT 0 NOT NULL,
	"destination_count" integer DEFAULT 0 NOT NULL,
	"destination_bytes" bigint DEFAULT 0 NOT NULL,
	"copy_count" integer DEFAULT 0 NOT NULL,
	"copy_bytes" bigint DEFAULT 0 NOT NULL,
	"unchanged_count" integer DEFAULT 0 NOT NULL,
	"delete_count" integer DEFAULT 0 NOT NULL,
	"delete_bytes" bigint DEFAULT 0 NOT NULL,
	"deleted_count" integer DEFAULT 0 NOT NULL,
	"approval" text,
	"decided_by" uuid,
	"decided_at" timestamp with time zone,
	"sample" jsonb,
	"error" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sync_deletions" (
	"cycle_id" uuid NOT NULL,
	"key" text NOT NULL,
	"size" bigint NOT NULL,
	"etag" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"error" text,
	CONSTRAINT "sync_deletions_cycle_id_key_pk" PRIMARY KEY("cycle_id","key")
);
--> statement-breakpoint
CREATE TABLE "sync_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"created_by" uuid,
	"kind" text NOT NULL,
	"source_cloud_account_id" uuid NOT NULL,
	"source_bucket" text NOT NULL,
	"source_path" text DEFAULT '' NOT NULL,
	"destination_cloud_account_id" uuid NOT NULL,
	"destination_bucket" text NOT NULL,
	"destination_path" text DEFAULT '' NOT NULL,
	"frequency" smallint DEFAULT 1 NOT NULL,
	"operation" smallint DEFAULT 1 NOT NULL,
	"allow_delete" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"quarantine_days" integer,
	"delete_threshold_count" integer DEFAULT 100 NOT NULL,
	"delete_threshold_percent" integer DEFAULT 10 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "audience" text DEFAULT 'members' NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "link" text;--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD COLUMN "bandwidth_limit" bigint;--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD COLUMN "sync_cycle_id" uuid;--> statement-breakpoint
ALTER TABLE "sync_cycles" ADD CONSTRAINT "sync_cycles_sync_job_id_sync_jobs_id_fk" FOREIGN KEY ("sync_job_id") REFERENCES "public"."sync_jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_cycles" ADD CONSTRAINT "sync_cycles_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_cycles" ADD CONSTRAINT "sync_cycles_batch_id_transfer_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."transfer_batches"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_cycles" ADD CONSTRAINT "sync_cycles_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_deletions" ADD CONSTRAINT "sync_deletions_cycle_id_sync_cycles_id_fk" FOREIGN KEY ("cycle_id") REFERENCES "public"."sync_cycles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_jobs" ADD CONSTRAINT "sync_jobs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_jobs" ADD CONSTRAINT "sync_jobs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_jobs" ADD CONSTRAINT "sync_jobs_source_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("source_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_jobs" ADD CONSTRAINT "sync_jobs_destination_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("destination_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sync_cycles_job_started_idx" ON "sync_cycles" USING btree ("sync_job_id","started_at");--> statement-breakpoint
CREATE UNIQUE INDEX "sync_cycles_one_live_idx" ON "sync_cycles" USING btree ("sync_job_id") WHERE "sync_cycles"."finished_at" IS NULL AND NOT "sync_cycles"."dry_run";--> statement-breakpoint
CREATE INDEX "sync_deletions_status_idx" ON "sync_deletions" USING btree ("cycle_id","status");--> statement-breakpoint
CREATE INDEX "sync_jobs_org_idx" ON "sync_jobs" USING btree ("organization_id","created_at");