import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { can } from '@beckon/contracts/permissions';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Identity } from '../auth/identity';
import { resolveIdentity } from '../auth/resolve-identity';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod } from '../errors';
import type { EventHub, StreamEvent } from '../realtime/event-hub';
import { outsideTrace, streamOpened } from '../tracing/http-spans';
import { authenticate } from './authenticate';

const ZStreamQuery = z.strictObject({
  scope: z.enum(['agent', 'org']).optional(),
  last_event_id: z.uuid().optional(),
});

const PAGE = 500;
/** A live stream whose client lets more than this pile up unread is closed (it can resume). */
export const MAX_UNREAD_BYTES = 1024 * 1024;

/** The reasons of a `stream.reset` event: the client resyncs (lists items again), then reads on. */
export const RESET_UNKNOWN = 'unknown or expired Last-Event-ID';
export const RESET_TOO_FAR_BEHIND = 'too far behind: resync, then follow the live stream';

const resetFrame = (reason: string) => `event: stream.reset\ndata: ${JSON.stringify({ reason })}\n\n`;

/** The last frame of a stream whose process stops: reconnect soon (to another process), with Last-Event-ID. */
export const STOPPING_FRAME = `retry: 500\nevent: stream.closing\ndata: ${JSON.stringify({
  reason: 'server stopping: reconnect with Last-Event-ID',
})}\n\n`;

/** The caller may still read this organization's items: same organization, items.read kept. */
export const stillReads = (current: Identity | null, identity: Identity) =>
  current !== null && current.orgId === identity.orgId && can(current.permissions, 'items.read');

/** One SSE frame: the event id (for Last-Event-ID), its kind, and `{id, type, created_at, item}`. */
const frame = (event: StreamEvent) =>
  `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    item: event.data.item ?? null,
  })}\n\n`;

/**
 * GET /mcp/sse: the agent event stream (decisions.md §5). An agent's key sees the items it
 * created, `?scope=org` (or a person's token) every item of the organization. `Last-Event-ID`
 * (header, or `last_event_id` for clients that cannot set headers) resumes after that event:
 * the backlog is read from the `events` table while live events wait, then both are merged
 * without duplicates, the replay waiting for the client to read each page. The replay is
 * bounded (STREAM_REPLAY_MAX_EVENTS): a client further behind, or one whose replay is outrun
 * by that many live events, gets `stream.reset` (too far behind) and the live stream. Comments
 * keep the connection alive and re-check the credential, so a revoked key's stream ends, and so
 * does one whose client stops reading (MAX_UNREAD_BYTES).
 */
export function registerAgentStream(app: FastifyInstance, deps: Deps): void {
  const open = new Set<(last?: string) => void>();
  // Streams never go idle: they end when closing starts (preClose), or the server's close, which
  // waits for in-flight requests, would wait for them.
  app.addHook('preClose', async () => {
    for (const close of open) close(STOPPING_FRAME);
  });
  app.get('/mcp/sse', async (request, reply) => {
    const identity = await authenticate(deps, request, 'items.read');
    const query = ZStreamQuery.safeParse(request.query);
    if (!query.success) throw AppError.invalid(fieldsFromZod(query.error.issues));
    const hub = deps.events;
    if (!hub) throw AppError.unavailable('stream_unavailable', 'event stream unavailable');
    const header = request.headers['last-event-id'];
    const lastEventId = (typeof header === 'string' && header) || query.data.last_event_id;
    // A person's token always sees the organization's items; an agent's key its own by default,
    // and only its own when the key is restricted to them.
    const scope = identity.itemsOfAgent ? 'agent' : identity.agentId ? (query.data.scope ?? 'agent') : 'org';
    const visible = (event: StreamEvent) => scope === 'org' || event.agent_id === identity.agentId;

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    streamOpened(request);
    res.write('retry: 2000\n\n');

    const maxReplay = deps.env.STREAM_REPLAY_MAX_EVENTS;
    const sent = new Set<string>();
    let waiting: StreamEvent[] | null = [];
    // Live events outran the replay: no more are held, the replay stops, the client resyncs.
    let outrun = () => {};
    const overtaken = new Promise<'behind'>((resolve) => {
      outrun = () => resolve('behind');
    });
    // Ids sent before going live, kept until a live event numbered after all of them: the hub may
    // hand over late an event the replay already read (notified just after the subscription).
    let sentUpTo = 0;
    const deliver = (event: StreamEvent) => {
      if (!visible(event) || sent.has(event.id)) return;
      if (waiting) {
        sent.add(event.id);
        sentUpTo = Math.max(sentUpTo, event.seq);
      } else if (sent.size > 0 && event.seq > sentUpTo) sent.clear();
      res.write(frame(event));
      if (!waiting && res.writableLength > MAX_UNREAD_BYTES) close();
    };
    const unsubscribe = hub.subscribe(
      identity.orgId,
      {
        event: (event) => {
          if (!waiting) deliver(event);
          else if (waiting.length < maxReplay) waiting.push(event);
          else outrun();
        },
        // The client resumes with Last-Event-ID and gets what the hub missed from the database.
        lost: () => close(),
      },
      // The agent's own events only: the hub then skips this stream for other agents' events.
      scope === 'agent' ? identity.agentId : null,
    );
    const token = request.headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';
    const heartbeat = setInterval(
      outsideTrace(() => void keepAlive(deps, token, identity, res, close)),
      deps.env.STREAM_HEARTBEAT_MS,
    );
    let closed = false;
    const close = (last?: string) => {
      if (closed) return;
      closed = true;
      open.delete(close);
      clearInterval(heartbeat);
      unsubscribe();
      res.end(last);
    };
    open.add(close);
    res.on('close', () => close());
    // The client may have left while the credential was being checked: then nothing stays open.
    if (res.destroyed) return close();

    let outcome: ReplayOutcome = 'done';
    try {
      if (lastEventId) {
        let overtakenAlready = false;
        const replaying = replay(hub, identity.orgId, lastEventId, deliver, res, {
          max: maxReplay,
          stopped: () => overtakenAlready || closed,
        });
        outcome = await Promise.race([replaying, overtaken]);
        overtakenAlready = true;
        replaying.catch(() => {});
      }
    } catch (err) {
      request.log.error({ err }, 'event stream replay failed');
      close();
      return;
    }
    if (closed) return;
    if (outcome === 'unknown') res.write(resetFrame(RESET_UNKNOWN));
    if (outcome === 'behind') {
      res.write(resetFrame(RESET_TOO_FAR_BEHIND));
      waiting = [];
    }
    for (const event of waiting) deliver(event);
    waiting = null;
  });
}

const isUuid = (value: string) => z.uuid().safeParse(value).success;

type ReplayOutcome = 'done' | 'unknown' | 'behind';

/**
 * Sends what follows `lastEventId`, page by page as the client reads. More than `max` events
 * behind (counted over the organization's events, before anything is sent; or reached while
 * sending, as the backlog grows) is too far: the client is better served by a resync.
 */
async function replay(
  hub: EventHub,
  orgId: string,
  lastEventId: string,
  deliver: (event: StreamEvent) => void,
  res: ServerResponse,
  { max, stopped }: { max: number; stopped: () => boolean },
): Promise<ReplayOutcome> {
  if (!isUuid(lastEventId)) return 'unknown';
  const seq = await hub.seqOf(orgId, lastEventId);
  if (seq === null) return 'unknown';
  if ((await hub.backlogAfter(orgId, seq, max)) > max) return 'behind';
  const size = Math.min(PAGE, max);
  let page = await hub.eventsAfterSeq(orgId, seq, size);
  for (let replayed = 0; ; ) {
    if (stopped()) return 'done';
    for (const event of page) deliver(event);
    replayed += page.length;
    const last = page[page.length - 1];
    if (page.length < size || !last) return 'done';
    if (res.writableNeedDrain) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    if (res.destroyed) return 'done';
    page = await hub.eventsAfterSeq(orgId, last.seq, size);
    if (page.length === 0) return 'done';
    if (replayed + page.length > max) return 'behind';
  }
}

async function keepAlive(
  deps: Deps,
  token: string,
  identity: Identity,
  res: ServerResponse,
  close: () => void,
) {
  const current = await resolveIdentity(deps, token).catch(() => identity);
  if (!stillReads(current, identity)) return close();
  if (!res.writableEnded) res.write(': keep-alive\n\n');
}
