CREATE TABLE "instance_operators" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "instance_operators" ADD CONSTRAINT "instance_operators_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "upload_reports_user_idx" ON "upload_reports" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "transfer_batches_requested_idx" ON "transfer_batches" USING btree ("requested_at","id");--> statement-breakpoint
CREATE INDEX "transfer_batches_user_requested_idx" ON "transfer_batches" USING btree ("user_id","requested_at");