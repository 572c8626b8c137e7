// `@cumulo/server/planning`: the transfer planner and its repository alone, for a process that measures the
// planner's own memory (bench/transfer (d)); it loads none of the services. Import `@cumulo/server/heap-policy`
// before it, as main.ts does.
export { openDb } from '../db/client.ts';
export { TransfersRepo } from '../modules/transfers/transfers.repo.ts';
export { TransferPlanningRepo } from '../modules/transfers/transfer-planning.repo.ts';
export { planBatch } from '../modules/transfers/engine/planner.ts';
