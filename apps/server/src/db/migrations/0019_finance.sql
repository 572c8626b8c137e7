CREATE TABLE "finance_alert_firings" (
	"alert_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"month" date NOT NULL,
	"kind" text NOT NULL,
	"value_cents" bigint NOT NULL,
	"budget_cents" bigint NOT NULL,
	"percent" integer NOT NULL,
	"fired_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "finance_alert_firings_alert_id_month_kind_pk" PRIMARY KEY("alert_id","month","kind")
);
--> statement-breakpoint
CREATE TABLE "finance_alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"label" text NOT NULL,
	"actual_percent" integer,
	"forecast_percent" integer,
	"start" date NOT NULL,
	"end" date NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "finance_budgets" (
	"organization_id" uuid NOT NULL,
	"cloud_account_id" uuid NOT NULL,
	"label" text NOT NULL,
	"month" date NOT NULL,
	"amount_cents" bigint NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "finance_budgets_organization_id_cloud_account_id_label_month_pk" PRIMARY KEY("organization_id","cloud_account_id","label","month")
);
--> statement-breakpoint
CREATE TABLE "finance_digests" (
	"organization_id" uuid NOT NULL,
	"frequency" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"entries" integer DEFAULT 0 NOT NULL,
	"recipients" integer DEFAULT 0 NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"error" text,
	CONSTRAINT "finance_digests_organization_id_frequency_period_start_pk" PRIMARY KEY("organization_id","frequency","period_start")
);
--> statement-breakpoint
CREATE TABLE "finance_products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"category" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "finance_settings" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"alert_emails" text[] DEFAULT '{}'::text[] NOT NULL,
	"logs_emails" text[] DEFAULT '{}'::text[] NOT NULL,
	"logs_frequency" text DEFAULT 'Monthly' NOT NULL,
	"show_dollar_sign" boolean DEFAULT true NOT NULL,
	"show_decimal" boolean DEFAULT true NOT NULL,
	"show_border" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "finance_alert_firings" ADD CONSTRAINT "finance_alert_firings_alert_id_finance_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."finance_alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_alert_firings" ADD CONSTRAINT "finance_alert_firings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_alerts" ADD CONSTRAINT "finance_alerts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_alerts" ADD CONSTRAINT "finance_alerts_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_alerts" ADD CONSTRAINT "finance_alerts_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_budgets" ADD CONSTRAINT "finance_budgets_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_budgets" ADD CONSTRAINT "finance_budgets_cloud_account_id_cloud_accounts_id_fk" FOREIGN KEY ("cloud_account_id") REFERENCES "public"."cloud_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_budgets" ADD CONSTRAINT "finance_budgets_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_digests" ADD CONSTRAINT "finance_digests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_products" ADD CONSTRAINT "finance_products_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_products" ADD CONSTRAINT "finance_products_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finance_settings" ADD CONSTRAINT "finance_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "finance_alerts_org_cloud_label_idx" ON "finance_alerts" USING btree ("organization_id","cloud_account_id","label");--> statement-breakpoint
CREATE INDEX "finance_budgets_org_month_idx" ON "finance_budgets" USING btree ("organization_id","month");--> statement-breakpoint
CREATE INDEX "finance_digests_org_claimed_idx" ON "finance_digests" USING btree ("organization_id","claimed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "finance_products_org_name_idx" ON "finance_products" USING btree ("organization_id",lower("name"));