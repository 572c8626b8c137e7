// The public entry of @cumulo/server (package.json "exports"): what code outside the package (bench/) may use to
// build and drive a server in its own process. Loading it loads the whole server (services, routes); a process
// that measures its own memory takes one of the narrow entries in entries/ instead.
export { loadConfig } from './config.ts';
export { createLogger } from './logger.ts';
export { openDb, runMigrations, type Db } from './db/client.ts';
export { analyticsDailyCosts } from './db/schema/index.ts';
export { startEmbeddedPostgres, type EmbeddedPostgres } from './db/embedded-postgres.ts';
export { QUEUES, startBoss } from './jobs/boss.ts';
export { buildApp } from './app.ts';
export { buildServices, type Services } from './services.ts';
export type { Principal } from './authz/principal.ts';
export { ObjectsService } from './modules/objects/objects.service.ts';
export type { SyncCycleRow, SyncJobRow } from './modules/sync/sync.views.ts';
export type { RollupRow } from './modules/analytics/ingest/report-types.ts';
export { AnalyticsCostsRepo, type CostScope } from './modules/analytics/analytics-costs.repo.ts';
export { searchStatement, type IndexedObject } from './modules/search/search.repo.ts';
export { searchSql } from './modules/search/search-query.ts';
export { findPreset } from './modules/encoding/presets.ts';
export { probe } from './modules/encoding/ffmpeg.ts';
