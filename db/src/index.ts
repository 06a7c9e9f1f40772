export * from './client';
export * from './cross-org-statements';
export * from './distribution';
export * from './distribution-rules';
export * from './embedded';
export * from './migrate';
export * as schema from './schema/index';
export * from './statement-rule';
