import { createHash } from 'node:crypto';
import type { Sql } from '@beckon/db';
import type postgres from 'postgres';
import { actorOf, type Identity } from '../auth/identity';
import { AppError } from '../errors';
import type { Context } from './context';

const MAX_KEY_LENGTH = 255;
/** A first request that has not finished after this long is taken as abandoned (crashed). */
const ABANDONED_AFTER_MS = 60_000;

/** JSON with sorted keys, so that the same body written in another key order matches. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * A transaction as the pool it came from, for code that opens its own transactions: those become
 * savepoints of it (postgres.js transactions have no `begin`).
 */
function nested(tx: postgres.TransactionSql): Sql {
  return new Proxy(tx, {
    get: (target, property, receiver) =>
      property === 'begin'
        ? (...args: unknown[]) => target.savepoint(args.at(-1) as (sql: postgres.TransactionSql) => unknown)
        : Reflect.get(target, property, receiver),
  }) as unknown as Sql;
}

type Stored = {
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
  created_at: Date;
};

/**
 * Runs a creating operation at most once per `Idempotency-Key` (decisions.md): the same key and
 * body within 24 h replays the first answer (header `Idempotent-Replayed: true`), the same key
 * with another body is a 422, and a duplicate arriving while the first is still running is a
 * 409. Keys are scoped to the caller (user, agent or inbound webhook) and the operation. Failed operations free
 * their key, so a corrected retry can use it.
 */
export async function idempotent<T>(
  ctx: Context & { identity: Identity },
  operation: string,
  input: unknown,
  status: number,
  /** The operation, given the connection to use: inside the transaction that stores its answer. */
  run: (sql: Sql) => Promise<T>,
): Promise<T> {
  const key = ctx.idempotencyKey;
  if (key === null) return run(ctx.deps.sql);
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw AppError.invalid({ 'Idempotency-Key': `must be 1 to ${MAX_KEY_LENGTH} characters` });
  }
  const { sql } = ctx.deps;
  const orgId = ctx.identity.orgId;
  const scope = `${operation}:${actorOf(ctx.identity).id}`;
  const hash = createHash('sha256').update(canonical(input)).digest('hex');

  for (let attempt = 0; attempt < 3; attempt++) {
    const claimed = await sql`
      insert into idempotency_keys (org_id, scope, key, request_hash)
      values (${orgId}, ${scope}, ${key}, ${hash})
      on conflict do nothing returning 1`;
    if (claimed.length > 0) {
      try {
        // The operation and its stored answer commit together: a crash in between can neither
        // leave a creation without its answer (a retry would create it again) nor the reverse.
        let result: T | undefined;
        await sql.begin(async (tx) => {
          result = await run(nested(tx));
          await tx`update idempotency_keys set response_status = ${status}, response_body = ${tx.json(result as never)}
                    where org_id = ${orgId} and scope = ${scope} and key = ${key}`;
        });
        return result as T;
      } catch (error) {
        await sql`delete from idempotency_keys where org_id = ${orgId} and scope = ${scope} and key = ${key}`;
        throw error;
      }
    }
    const [stored] = await sql<Stored[]>`
      select request_hash, response_status, response_body, created_at from idempotency_keys
       where org_id = ${orgId} and scope = ${scope} and key = ${key}`;
    if (!stored) continue;
    const age = Date.now() - stored.created_at.getTime();
    const expired = age > 24 * 3600_000 || (stored.response_status === null && age > ABANDONED_AFTER_MS);
    if (expired) {
      await sql`delete from idempotency_keys where org_id = ${orgId} and scope = ${scope} and key = ${key}
                  and (created_at < now() - interval '24 hours'
                       or (response_status is null and created_at < now() - ${`${ABANDONED_AFTER_MS} milliseconds`}::interval))`;
      continue;
    }
    if (stored.request_hash !== hash)
      throw AppError.validationFailedWith(
        'idempotency_key_reused',
        'idempotency key reused with a different request',
      );
    if (stored.response_status === null)
      throw AppError.conflict('request_in_progress', 'a request with this idempotency key is in progress');
    ctx.responseHeaders['idempotent-replayed'] = 'true';
    return stored.response_body as T;
  }
  throw AppError.conflict('request_in_progress', 'a request with this idempotency key is in progress');
}
