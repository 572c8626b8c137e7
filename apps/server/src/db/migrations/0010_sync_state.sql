CREATE TABLE "sync_objects" (
	"sync_job_id" uuid NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"size" bigint NOT NULL,
	"source_etag" text,
	"cycle_id" uuid,
	CONSTRAINT "sync_objects_sync_job_id_key_pk" PRIMARY KEY("sync_job_id","key")
);
--> statement-breakpoint
ALTER TABLE "sync_cycles" ADD COLUMN "destination_listed" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "sync_jobs" ADD COLUMN "destination_checked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sync_objects" ADD CONSTRAINT "sync_objects_sync_job_id_sync_jobs_id_fk" FOREIGN KEY ("sync_job_id") REFERENCES "public"."sync_jobs"("id") ON DELETE cascade ON UPDATE no action;