export * from './client';
export * from './embedded';
export * from './migrate';
export * as schema from './schema/index';
