CREATE TABLE "transfer_batches" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid,
	"transfer_type" smallint DEFAULT 1 NOT NULL,
	"operation" text NOT NULL,
	"source_cloud_account_id" uuid,
	"source_bucket" text NOT NULL,
	"source_path" text DEFAULT '' NOT NULL,
	"source_selection" jsonb,
	"destination_cloud_account_id" uuid,
	"destination_bucket" text NOT NULL,
	"destination_path" text DEFAULT '' NOT NULL,
	"skip_existing" boolean DEFAULT false NOT NULL,
	"status" smallint DEFAULT 2 NOT NULL,
	"phase" text DEFAULT 'planning' NOT NULL,
	"plan_cursor" text,
	"total_number" integer DEFAULT 0 NOT NULL,
	"total_size" bigint DEFAULT 0 NOT NULL,
	"transferred_number" integer DEFAULT 0 NOT NULL,
	"transferred_size" bigint DEFAULT 0 NOT NULL,
	"failed_number" integer DEFAULT 0 NOT NULL,
	"skipped_number" integer DEFAULT 0 NOT NULL,
	"skipped_size" bigint DEFAULT 0 NOT NULL,
	"deleted_number" integer DEFAULT 0 NOT NULL,
	"average_speed" bigint DEFAULT 0 NOT NULL,
	"retry_of_id" uuid,
	"retried" boolean DEFAULT false NOT NULL,
	"sync_job_id" uuid,
	"error" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transfer_items" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"batch_id" uuid NOT NULL,
	"source_key" text NOT NULL,
	"destination_key" text NOT NULL,
	"size" bigint NOT NULL,
	"source_etag" text,
	"source_md5" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" smallint DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"method" text,
	"upload_id" text,
	"part_size" bigint,
	"bytes_done" bigint DEFAULT 0 NOT NULL,
	"md5" text,
	"sha256" text,
	"source_deleted" boolean DEFAULT false NOT NULL,
	"error" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transfer_parts" (
	"item_id" bigint NOT NULL,
	"part_number" integer NOT NULL,
	"size" bigint NOT NULL,
	"etag" text,
	"md5" text,
	CONSTRAINT "transfer_parts_item_id_part_number_pk" PRIMARY KEY("item_id","part_number")
);
--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD CONSTRAINT "transfer_batches_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD CONSTRAINT "transfer_batches_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD CONSTRAINT "transfer_batches_source_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("source_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD CONSTRAINT "transfer_batches_destination_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("destination_cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_items" ADD CONSTRAINT "transfer_items_batch_id_transfer_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."transfer_batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_parts" ADD CONSTRAINT "transfer_parts_item_id_transfer_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."transfer_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transfer_batches_org_requested_idx" ON "transfer_batches" USING btree ("organization_id","requested_at");--> statement-breakpoint
CREATE INDEX "transfer_batches_status_idx" ON "transfer_batches" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "transfer_items_batch_key_idx" ON "transfer_items" USING btree ("batch_id","source_key");--> statement-breakpoint
CREATE INDEX "transfer_items_claim_idx" ON "transfer_items" USING btree ("batch_id","status","id");