export * from './organizations.ts';
export * from './identity.ts';
export * from './cloud-accounts.ts';
export * from './alerts.ts';
export * from './uploads.ts';
export * from './sharing.ts';
export * from './transfers.ts';
export * from './sync.ts';
