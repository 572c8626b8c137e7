ALTER TABLE "transfer_items" ADD COLUMN "lost_upload_from" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transfer_items" ADD COLUMN "lost_upload_until" timestamp with time zone;