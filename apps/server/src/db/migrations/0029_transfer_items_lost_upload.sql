ALTER TABLE "transfer_items" ADD COLUMN "lost_upload_from" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transfer_items" ADD COLUMN "lost_upload_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "transfer_items_lost_upload_idx" ON "transfer_items" USING btree ("id") WHERE "transfer_items"."lost_upload_from" is not null;