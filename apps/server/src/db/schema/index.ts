export * from './organizations.ts';
export * from './identity.ts';
