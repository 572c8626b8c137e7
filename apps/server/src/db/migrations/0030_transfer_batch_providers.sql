ALTER TABLE "transfer_batches" ADD COLUMN "source_provider" text;--> statement-breakpoint
ALTER TABLE "transfer_batches" ADD COLUMN "destination_provider" text;--> statement-breakpoint
-- The batches made before: their accounts' providers, where the accounts are still there.
UPDATE "transfer_batches" AS b SET
	"source_provider" = (SELECT a."provider" FROM "cloud_accounts" a WHERE a."id" = b."source_cloud_account_id"),
	"destination_provider" = (SELECT a."provider" FROM "cloud_accounts" a WHERE a."id" = b."destination_cloud_account_id");
--> statement-breakpoint
-- Every new batch (a transfer, a retry, a sync cycle's copy) records its accounts' providers as it is made, whoever
-- inserts it, so a removed account (its id set null) leaves the batch's price and direction as they were.
CREATE FUNCTION "transfer_batches_record_providers"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW."source_provider" IS NULL THEN
		NEW."source_provider" := (SELECT "provider" FROM "cloud_accounts" WHERE "id" = NEW."source_cloud_account_id");
	END IF;
	IF NEW."destination_provider" IS NULL THEN
		NEW."destination_provider" := (SELECT "provider" FROM "cloud_accounts" WHERE "id" = NEW."destination_cloud_account_id");
	END IF;
	RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "transfer_batches_providers" BEFORE INSERT ON "transfer_batches"
	FOR EACH ROW EXECUTE FUNCTION "transfer_batches_record_providers"();
