import { randomUUID } from 'node:crypto';
import type { Identity } from '../auth/identity';
import { RpcError } from './rpc';

/** The logging levels of the specification (RFC 5424's), least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The client capability each request a server may send needs (declared at `initialize`). */
export const CLIENT_REQUESTS: Record<string, string> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** How long a client has to answer (a person may be filling in a form). */
const ANSWER_WITHIN_MS = 10 * 60_000;
/** How long a session's logging level is kept after it was set, and how many sessions at most. */
const LEVEL_KEPT_MS = 24 * 3600_000;
const MOST_LEVELS = 10_000;

type Pending = {
  owner: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: RpcError) => void;
};
type Reply = {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
};

/** Where a process passes on the answers it did not ask for, to the process that did. */
export const REPLIES_CHANNEL = 'beckon_mcp_replies';
/** The ids of the requests Beckon sends (no other answer is passed on). */
const ID_PREFIX = 'beckon-';

/** Whose an answer is: the organization and credential of the request. */
export const ownerOf = (identity: Identity) => `${identity.orgId}:${identity.credentialId}`;

/**
 * What a server says to its client while answering one of its requests, at 2025-03-26 …
 * 2025-11-25: requests (sampling, elicitation, roots) sent in the request's event stream, whose
 * answers come back in POSTs of their own and are matched here by their JSON-RPC id; and the
 * logging level a session set. The waiting call is held by the process that serves the stream; an
 * answer another process receives is passed on through Postgres (`pg_notify`, REPLIES_CHANNEL:
 * http/mcp.ts). The logging level stays with the process that received `logging/setLevel`.
 */
export class Conversations {
  private readonly pending = new Map<string, Pending>();
  private readonly levels = new Map<string, { level: string; until: number }>();

  /**
   * Sends `method` to the client with `send` and resolves with its result; rejects with the
   * client's error, when it does not answer in time, or when `signal` aborts.
   */
  ask(
    identity: Identity,
    send: (message: Record<string, unknown>) => Promise<void>,
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const id = `${ID_PREFIX}${randomUUID()}`;
    return new Promise((resolve, reject) => {
      const finish = () => {
        this.pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
      };
      const aborted = () => {
        finish();
        reject(new RpcError(-32001, `the client did not answer ${method}`));
      };
      const timer = setTimeout(aborted, ANSWER_WITHIN_MS);
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted);
      this.pending.set(id, {
        owner: ownerOf(identity),
        resolve: (result) => {
          finish();
          resolve(result);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      send({ jsonrpc: '2.0', id, method, params }).catch(() => aborted());
    });
  }

  /**
   * A response the client POSTed (`owner`: its credential, ownerOf): settles the request it
   * answers when this process sent it to the same credential. Whether it did.
   */
  answered(owner: string, reply: Reply): boolean {
    const pending = typeof reply.id === 'string' ? this.pending.get(reply.id) : undefined;
    if (!pending || pending.owner !== owner) return false;
    if (reply.error && typeof reply.error === 'object') {
      const { code, message, data } = reply.error;
      pending.reject(
        new RpcError(typeof code === 'number' ? code : -32603, String(message ?? 'client error'), data),
      );
    } else pending.resolve((reply.result ?? {}) as Record<string, unknown>);
    return true;
  }

  /** logging/setLevel of a session: from then on, only messages this severe or more. */
  setLevel(session: string, level: string) {
    const now = Date.now();
    if (this.levels.size >= MOST_LEVELS) {
      for (const [key, kept] of this.levels) if (kept.until <= now) this.levels.delete(key);
      // Still full: the oldest setting goes (a Map iterates in insertion order).
      const oldest = this.levels.keys().next().value;
      if (this.levels.size >= MOST_LEVELS && oldest !== undefined) this.levels.delete(oldest);
    }
    this.levels.delete(session);
    this.levels.set(session, { level, until: now + LEVEL_KEPT_MS });
  }

  /** Whether a message of `level` goes to the session (every level when none was set). */
  logs(session: string | undefined, level: string): boolean {
    const kept = session === undefined ? undefined : this.levels.get(session);
    if (!kept || kept.until <= Date.now()) return true;
    return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(kept.level);
  }
}

/** Whether an answer may be another process's to settle (an id Beckon gives its requests). */
export const passedOn = (reply: Reply) => typeof reply.id === 'string' && reply.id.startsWith(ID_PREFIX);

/** An answer passed on by another process (REPLIES_CHANNEL's payload): its credential and itself. */
export function relayed(payload: string): { owner: string; reply: Reply } | null {
  try {
    const parsed = JSON.parse(payload) as { owner?: unknown; reply?: unknown };
    if (typeof parsed.owner !== 'string' || !parsed.reply || typeof parsed.reply !== 'object') return null;
    return { owner: parsed.owner, reply: parsed.reply as Reply };
  } catch {
    return null;
  }
}

/** Whether a POSTed body is only responses (a client answering the server's requests). */
export function repliesOf(body: unknown): Reply[] | null {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return null;
  const replies = messages.filter(
    (message): message is Reply =>
      !!message &&
      typeof message === 'object' &&
      (message as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
      !('method' in message) &&
      ('result' in message || 'error' in message),
  );
  return replies.length === messages.length ? replies : null;
}
