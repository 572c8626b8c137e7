CREATE TABLE "audits" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"author_user_id" uuid,
	"author_name" text NOT NULL,
	"api_key_id" uuid,
	"entity" text NOT NULL,
	"type" text NOT NULL,
	"resource" text NOT NULL,
	"resource_id" text,
	"changes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audits" ADD CONSTRAINT "audits_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audits" ADD CONSTRAINT "audits_author_user_id_users_id_fk" FOREIGN KEY ("author_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audits" ADD CONSTRAINT "audits_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audits_org_time_idx" ON "audits" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "audits_org_entity_idx" ON "audits" USING btree ("organization_id","entity","created_at");--> statement-breakpoint
CREATE INDEX "audits_org_author_idx" ON "audits" USING btree ("organization_id","author_user_id","created_at");--> statement-breakpoint
CREATE FUNCTION "audits_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- Foreign-key actions (an organisation removed, an author or an API key removed) run as triggers themselves.
	IF pg_trigger_depth() > 1 THEN
		RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
	END IF;
	RAISE EXCEPTION 'audits is append-only';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audits_no_change" BEFORE UPDATE OR DELETE ON "audits"
	FOR EACH ROW EXECUTE FUNCTION "audits_append_only"();
