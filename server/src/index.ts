export type { Identity } from './auth/identity';
export type { Deps } from './deps';
export { AppError } from './errors';
export type { AppRouter } from './trpc/app-router';
