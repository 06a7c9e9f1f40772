import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Closing a server waits for its connections to end. Node ends kept-alive connections between
 * requests at once, but not one that was opened and never sent a byte (a client's pool opens
 * connections ahead of requests it may then drop): such a connection would hold the close until
 * the header timeout. When closing starts, the connections that never sent anything are closed;
 * those with a request in flight are left to finish.
 */
export function closeUnusedConnections(app: FastifyInstance): void {
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.addHook('preClose', async () => {
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  });
}
