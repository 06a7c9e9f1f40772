import { can } from '@beckon/contracts/permissions';
import type { WebSocket } from '@fastify/websocket';
import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Identity } from '../auth/identity';
import { resolveIdentity } from '../auth/resolve-identity';
import type { Deps } from '../deps';
import { AppError, isDatabaseUnavailable } from '../errors';
import { addressSubject } from '../rate-limit/client-address';
import type { StreamEvent } from '../realtime/event-hub';
import { streamOpened } from '../tracing/http-spans';
import { MAX_UNREAD_BYTES, stillReads } from './agent-stream';
import { HOLD_RETRY_AFTER_SECONDS, type Holds } from './holds';

const ZAuthMessage = z.object({ type: z.literal('auth'), token: z.string().min(1).max(512) });

/**
 * Close codes: 4400 bad first message, 4401 unauthorized (or revoked), 4403 permission denied,
 * 1013 the client reads too slowly (more than MAX_UNREAD_BYTES waiting), the database cannot
 * be reached, or the caller holds as many streams as it may (holds.ts): reconnect later and
 * refetch; 1001 the process is stopping: reconnect (elsewhere).
 */
const send = (socket: WebSocket, message: object) => socket.send(JSON.stringify(message));

const eventMessage = (event: StreamEvent) => ({
  type: event.type,
  id: event.id,
  created_at: event.created_at.toISOString(),
  item: event.data.item ?? null,
});

/**
 * GET /api/ws (decisions.md §5): the dashboard's live updates. The token comes in the first
 * message `{type:"auth", token}` (never in the URL, which ends up in logs); then every item event
 * of the organization is pushed as `{type, id, created_at, item}`. Pings every
 * STREAM_HEARTBEAT_MS also re-check the credential, so a revoked session's socket closes.
 */
export async function registerWebSocket(app: FastifyInstance, deps: Deps, holds: Holds): Promise<void> {
  const open = new Set<WebSocket>();
  // Before the plugin's own preClose (which closes without a code): clients are told why.
  app.addHook('preClose', async () => {
    for (const socket of open) socket.close(1001, 'server stopping: reconnect');
  });
  await app.register(fastifyWebsocket, { options: { maxPayload: 16 * 1024 } });
  // Sockets still waiting for their auth message, per client address: a client cannot hold
  // more of them than it may have request bodies in flight.
  const waiting = new Map<string, number>();
  app.get('/api/ws', { websocket: true }, (socket, request) => {
    streamOpened(request, 101);
    const address = addressSubject(request.ip);
    if ((waiting.get(address) ?? 0) >= deps.env.HTTP_MAX_BODIES_PER_ADDRESS) {
      return socket.close(1013, 'too many sockets waiting for their auth message');
    }
    waiting.set(address, (waiting.get(address) ?? 0) + 1);
    let authenticating = true;
    const authenticated = () => {
      if (!authenticating) return;
      authenticating = false;
      const left = (waiting.get(address) ?? 1) - 1;
      if (left > 0) waiting.set(address, left);
      else waiting.delete(address);
    };
    let unsubscribe: (() => void) | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    const authTimeout = setTimeout(() => socket.close(4401, 'no auth message'), 10_000);
    let release: (() => void) | undefined;
    open.add(socket);
    socket.on('close', () => {
      open.delete(socket);
      authenticated();
      release?.();
      clearTimeout(authTimeout);
      clearInterval(heartbeat);
      unsubscribe?.();
    });
    socket.once('message', async (raw) => {
      clearTimeout(authTimeout);
      authenticated();
      const message = ZAuthMessage.safeParse(parseJson(raw.toString()));
      if (!message.success) {
        send(socket, {
          type: 'error',
          error: 'the first message must be {"type":"auth","token":"..."}',
          code: 'invalid_request',
        });
        return socket.close(4400, 'bad auth message');
      }
      const { token } = message.data;
      const identity = await resolveIdentity(deps, token).catch((error: unknown) =>
        isDatabaseUnavailable(error) ? ('unavailable' as const) : null,
      );
      // Not a credential that failed: the client must not take it for a sign-out.
      if (identity === 'unavailable') {
        send(socket, { type: 'error', error: 'database unavailable', code: 'database_unavailable' });
        return socket.close(1013, 'database unavailable');
      }
      if (!identity) {
        send(socket, { type: 'error', error: 'unauthorized', code: 'unauthorized' });
        return socket.close(4401, 'unauthorized');
      }
      if (!can(identity.permissions, 'items.read')) {
        send(socket, {
          type: 'error',
          error: 'permission denied',
          code: 'permission_denied',
          required: 'items.read',
        });
        return socket.close(4403, 'permission denied');
      }
      if (!deps.events) return socket.close(1011, 'event stream unavailable');
      // The socket may have closed while the token was being checked: subscribe only to an open one.
      if (socket.readyState !== socket.OPEN) return;
      const held = holds.take(identity);
      if (held instanceof AppError) {
        send(socket, { type: 'error', ...held.body, retry_after: HOLD_RETRY_AFTER_SECONDS });
        return socket.close(1013, 'too many open streams');
      }
      release = held;
      unsubscribe = deps.events.subscribe(identity.orgId, {
        event: (event) => {
          if (identity.itemsOfAgent && event.agent_id !== identity.itemsOfAgent) return;
          send(socket, eventMessage(event));
          if (socket.bufferedAmount > MAX_UNREAD_BYTES) socket.close(1013, 'reading too slowly');
        },
        // Events may have been missed: the client reconnects and refetches.
        lost: () => socket.close(1012, 'events may have been missed'),
      });
      send(socket, { type: 'ready', user_id: identity.userId, org_id: identity.orgId });
      heartbeat = setInterval(
        () => void recheck(deps, token, identity, socket),
        deps.env.STREAM_HEARTBEAT_MS,
      );
    });
  });
}

async function recheck(deps: Deps, token: string, identity: Identity, socket: WebSocket) {
  const current = await resolveIdentity(deps, token).catch(() => identity);
  if (!current || current.orgId !== identity.orgId) return socket.close(4401, 'credential revoked');
  if (!stillReads(current, identity)) return socket.close(4403, 'permission denied');
  socket.ping();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
