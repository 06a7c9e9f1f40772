export * from './client';
export * from './cross-org-statements';
export * from './distribution';
export * from './distribution-rules';
export * from './embedded';
export { DataDirInUse } from './left-behind';
export * from './migrate';
export * as schema from './schema/index';
export * from './statement-rule';
