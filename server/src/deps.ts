import type { Db, Sql } from '@beckon/db';
import type { Env } from './env';
import type { Logger } from './log';

/** What every service receives: configuration, the database, a logger. */
export type Deps = {
  env: Env;
  sql: Sql;
  db: Db;
  log: Logger;
};

/** The WWW-Authenticate challenge of a 401: it points agents at the resource metadata. */
export const bearerChallenge = (env: Env) =>
  `Bearer realm="beckon", resource_metadata="${env.RESOURCE_URL}/.well-known/oauth-protected-resource"`;
