export * from './client';
export * from './distribution';
export * from './distribution-rules';
export * from './embedded';
export * from './migrate';
export * as schema from './schema/index';
