CREATE TABLE "analytics_daily_costs" (
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"period_id" uuid NOT NULL,
	"day" date NOT NULL,
	"usage_account_id" text NOT NULL,
	"line_item_type" text NOT NULL,
	"product_code" text NOT NULL,
	"usage_type" text NOT NULL,
	"operation" text NOT NULL,
	"region" text NOT NULL,
	"resource_id" text NOT NULL,
	"cost_nano" bigint NOT NULL,
	"usage_amount" double precision NOT NULL,
	"line_items" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics_ingest_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"trigger" text NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"periods_seen" integer DEFAULT 0 NOT NULL,
	"periods_replaced" integer DEFAULT 0 NOT NULL,
	"periods_skipped" integer DEFAULT 0 NOT NULL,
	"rows" bigint DEFAULT 0 NOT NULL,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "analytics_report_periods" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"report" text NOT NULL,
	"period" text NOT NULL,
	"layout" text NOT NULL,
	"version" text NOT NULL,
	"manifest_key" text NOT NULL,
	"current" boolean DEFAULT false NOT NULL,
	"line_items" bigint DEFAULT 0 NOT NULL,
	"cost_nano" bigint DEFAULT 0 NOT NULL,
	"ingested_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "cloud_accounts" ADD COLUMN "billing_error" text;--> statement-breakpoint
ALTER TABLE "analytics_daily_costs" ADD CONSTRAINT "analytics_daily_costs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_daily_costs" ADD CONSTRAINT "analytics_daily_costs_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_daily_costs" ADD CONSTRAINT "analytics_daily_costs_period_id_analytics_report_periods_id_fk" FOREIGN KEY ("period_id") REFERENCES "public"."analytics_report_periods"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_ingest_runs" ADD CONSTRAINT "analytics_ingest_runs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_ingest_runs" ADD CONSTRAINT "analytics_ingest_runs_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_report_periods" ADD CONSTRAINT "analytics_report_periods_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_report_periods" ADD CONSTRAINT "analytics_report_periods_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analytics_daily_costs_day_idx" ON "analytics_daily_costs" USING btree ("organization_id","cloud_account_id","day");--> statement-breakpoint
CREATE INDEX "analytics_daily_costs_product_idx" ON "analytics_daily_costs" USING btree ("organization_id","cloud_account_id","product_code","day");--> statement-breakpoint
CREATE INDEX "analytics_daily_costs_period_idx" ON "analytics_daily_costs" USING btree ("period_id");--> statement-breakpoint
CREATE INDEX "analytics_ingest_runs_account_idx" ON "analytics_ingest_runs" USING btree ("organization_id","cloud_account_id","queued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "analytics_report_periods_current_key" ON "analytics_report_periods" USING btree ("cloud_account_id","layout","report","period") WHERE "analytics_report_periods"."current";--> statement-breakpoint
CREATE INDEX "analytics_report_periods_org_idx" ON "analytics_report_periods" USING btree ("organization_id","cloud_account_id");