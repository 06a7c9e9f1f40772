import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Identity } from '../auth/identity';
import { can } from '../auth/permissions';
import { resolveIdentity } from '../auth/resolve-identity';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod } from '../errors';
import type { EventHub, StreamEvent } from '../realtime/event-hub';
import { authenticate } from './authenticate';

const ZStreamQuery = z.strictObject({
  scope: z.enum(['agent', 'org']).optional(),
  last_event_id: z.uuid().optional(),
});

const PAGE = 500;
/** A live stream whose client lets more than this pile up unread is closed (it can resume). */
export const MAX_UNREAD_BYTES = 1024 * 1024;

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
 * without duplicates, the replay waiting for the client to read each page. Comments keep the
 * connection alive and re-check the credential, so a revoked key's stream ends, and so does one
 * whose client stops reading (MAX_UNREAD_BYTES).
 */
export function registerAgentStream(app: FastifyInstance, deps: Deps): void {
  const open = new Set<() => void>();
  // Streams never go idle, so closing the server ends them.
  app.addHook('onClose', async () => {
    for (const close of open) close();
  });
  app.get('/mcp/sse', async (request, reply) => {
    const identity = await authenticate(deps, request, 'items.read');
    const query = ZStreamQuery.safeParse(request.query);
    if (!query.success) throw AppError.invalid(fieldsFromZod(query.error.issues));
    const hub = deps.events;
    if (!hub) throw AppError.unavailable('event stream unavailable');
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
    res.write('retry: 2000\n\n');

    const sent = new Set<string>();
    let waiting: StreamEvent[] | null = [];
    const deliver = (event: StreamEvent) => {
      if (!visible(event) || sent.has(event.id)) return;
      if (waiting) sent.add(event.id);
      res.write(frame(event));
      if (!waiting && res.writableLength > MAX_UNREAD_BYTES) close();
    };
    const unsubscribe = hub.subscribe(identity.orgId, {
      event: (event) => {
        if (waiting) waiting.push(event);
        else deliver(event);
      },
      // The client resumes with Last-Event-ID and gets what the hub missed from the database.
      lost: () => close(),
    });
    const token = request.headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';
    const heartbeat = setInterval(
      () => void keepAlive(deps, token, identity, res, close),
      deps.env.STREAM_HEARTBEAT_MS,
    );
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      open.delete(close);
      clearInterval(heartbeat);
      unsubscribe();
      res.end();
    };
    open.add(close);
    res.on('close', close);
    // The client may have left while the credential was being checked: then nothing stays open.
    if (res.destroyed) return close();

    try {
      if (lastEventId) await replay(hub, identity.orgId, lastEventId, deliver, res);
    } catch (err) {
      request.log.error({ err }, 'event stream replay failed');
      close();
      return;
    }
    for (const event of waiting) deliver(event);
    waiting = null;
    sent.clear();
  });
}

const isUuid = (value: string) => z.uuid().safeParse(value).success;

async function replay(
  hub: EventHub,
  orgId: string,
  lastEventId: string,
  deliver: (event: StreamEvent) => void,
  res: ServerResponse,
) {
  let page = isUuid(lastEventId) ? await hub.eventsAfter(orgId, lastEventId, PAGE) : null;
  if (!page) {
    res.write(
      `event: stream.reset\ndata: ${JSON.stringify({ reason: 'unknown or expired Last-Event-ID' })}\n\n`,
    );
    return;
  }
  while (page.length > 0) {
    for (const event of page) deliver(event);
    const last = page[page.length - 1];
    if (page.length < PAGE || !last) break;
    if (res.writableNeedDrain) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    if (res.destroyed) return;
    page = await hub.eventsAfterSeq(orgId, last.seq, PAGE);
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
