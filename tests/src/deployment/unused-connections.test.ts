import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../harness';

/** Opens a TCP connection to `url` that sends nothing. */
const silentConnection = (url: string) =>
  new Promise<Socket>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });

describe('closing with connections that never sent a request', () => {
  it('closes them instead of waiting for their header timeout', async () => {
    const server = await startTestServer();
    const socket = await silentConnection(server.resource.baseUrl);
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    // A request on another connection is still answered first.
    expect((await server.resource.get('/health')).status).toBe(200);
    // Without the server closing the silent connection, this waits for the header timeout
    // (beyond the test's own timeout).
    await server.close();
    await ended;
    expect(socket.destroyed).toBe(true);
  });
});
