import type { FastifyInstance } from 'fastify';
import type { Identity } from '../auth/identity';
import type { Env } from '../env';
import { AppError } from '../errors';
import { sendAppError } from './errors';
import type {} from './request-state';

/** How long a refused caller should wait: holds end as streams close and waits answer. */
export const HOLD_RETRY_AFTER_SECONDS = 5;

type HoldLimits = Pick<Env, 'HOLDS_PER_CREDENTIAL' | 'HOLDS_PER_USER' | 'HOLDS_PER_PROCESS'>;

/**
 * What callers hold open in this process (event streams, WebSockets, MCP calls that may wait:
 * `wait_seconds`, `tasks/result`), counted per credential, per user and in all: each holds a
 * socket and memory for as long as it lasts, so each is capped (HOLDS_PER_*, docs/security.md).
 * One SDK client shares one stream among its waits, far below the caps.
 */
export class Holds {
  private readonly counts = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: HoldLimits) {}

  /** Takes a hold for the caller: its release (idempotent), or the 429 when a cap is reached. */
  take(identity: Identity): (() => void) | AppError {
    const credential = `cred:${identity.credentialId}`;
    const user = `user:${identity.userId}`;
    if (
      this.total >= this.limits.HOLDS_PER_PROCESS ||
      (this.counts.get(credential) ?? 0) >= this.limits.HOLDS_PER_CREDENTIAL ||
      (this.counts.get(user) ?? 0) >= this.limits.HOLDS_PER_USER
    ) {
      return AppError.rateLimited(HOLD_RETRY_AFTER_SECONDS);
    }
    this.total += 1;
    for (const key of [credential, user]) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      for (const key of [credential, user]) {
        const left = (this.counts.get(key) ?? 1) - 1;
        if (left > 0) this.counts.set(key, left);
        else this.counts.delete(key);
      }
    };
  }

  /** Holds open now (for tests and metrics). */
  get size(): number {
    return this.total;
  }
}

/** The routes whose requests are holds, by `<METHOD> <route>` (WebSockets: websocket.ts). */
const HELD_ROUTES = new Set(['GET /mcp/sse', 'POST /mcp']);

/**
 * Takes a hold for each request to a held route once its caller is known (the API limit's
 * hook resolved it), released when the response ends or its connection closes. Past a cap:
 * 429 with Retry-After (POST /mcp: as a JSON-RPC error, once its body is read).
 */
export function registerHolds(app: FastifyInstance, holds: Holds): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.identity || !HELD_ROUTES.has(`${request.method} ${request.routeOptions.url}`)) return done();
    const release = holds.take(request.identity);
    if (release instanceof AppError) {
      if (request.method === 'POST') {
        request.rateLimitError ??= release;
        return done();
      }
      sendAppError(reply, release);
      return;
    }
    // Emitted when the response ends and when its connection closes first.
    reply.raw.once('close', release);
    done();
  });
}
