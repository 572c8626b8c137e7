CREATE TABLE "analytics_monthly_costs" (
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"period_id" uuid NOT NULL,
	"month" text NOT NULL,
	"usage_account_id" text NOT NULL,
	"line_item_type" text NOT NULL,
	"product_code" text NOT NULL,
	"usage_type" text NOT NULL,
	"operation" text NOT NULL,
	"region" text NOT NULL,
	"resource_id" text NOT NULL,
	"cost_nano" bigint NOT NULL,
	"usage_amount" double precision NOT NULL,
	"line_items" integer NOT NULL,
	"last_day" date NOT NULL
);
--> statement-breakpoint
ALTER TABLE "analytics_monthly_costs" ADD CONSTRAINT "analytics_monthly_costs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_monthly_costs" ADD CONSTRAINT "analytics_monthly_costs_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_monthly_costs" ADD CONSTRAINT "analytics_monthly_costs_period_id_analytics_report_periods_id_fk" FOREIGN KEY ("period_id") REFERENCES "public"."analytics_report_periods"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analytics_monthly_costs_month_idx" ON "analytics_monthly_costs" USING btree ("organization_id","cloud_account_id","month");--> statement-breakpoint
CREATE INDEX "analytics_monthly_costs_org_month_idx" ON "analytics_monthly_costs" USING btree ("organization_id","month");--> statement-breakpoint
CREATE INDEX "analytics_monthly_costs_period_idx" ON "analytics_monthly_costs" USING btree ("period_id");