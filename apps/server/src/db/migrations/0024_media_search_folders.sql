DROP INDEX "search_objects_key_trgm";--> statement-breakpoint
CREATE INDEX "search_objects_prefix_trgm" ON "search_objects" USING gin ("prefix" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "search_objects_folder_key_trgm" ON "search_objects" USING gin ("key" gin_trgm_ops) WHERE "search_objects"."key" like '%/';