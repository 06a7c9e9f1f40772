export type { AppRouter } from './app-router';
export type { Identity } from './auth/identity';
export type { Deps } from './deps';
export { AppError } from './errors';
