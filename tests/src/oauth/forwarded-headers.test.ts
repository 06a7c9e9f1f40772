import { buildGateway } from '@beckon/server/http/gateway';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient, startTestServer, type TestServer } from '../harness';

/**
 * The authorization server builds its discovery URLs from the request's host and scheme: only a
 * TRUST_PROXY peer may tell it another one (X-Forwarded-Host, X-Forwarded-Proto).
 */

let trusting: TestServer;
let untrusting: TestServer;
let gateway: FastifyInstance | undefined;

beforeAll(async () => {
  trusting = await startTestServer(); // TRUST_PROXY=loopback: this test's own address is trusted
  untrusting = await startTestServer({ env: { TRUST_PROXY: '10.9.9.9' } });
});
afterAll(async () => {
  await gateway?.close();
  await trusting?.close();
  await untrusting?.close();
});

type Metadata = { issuer: string; token_endpoint: string; registration_endpoint: string };
const DISCOVERY = '/.well-known/oauth-authorization-server';
const SPOOFED = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

describe('forwarded headers at the authorization server', () => {
  it('are ignored from a peer TRUST_PROXY does not name: discovery keeps the real host', async () => {
    const plain = await untrusting.auth.get<Metadata>(DISCOVERY);
    const spoofed = await untrusting.auth.get<Metadata>(DISCOVERY, { headers: SPOOFED });
    expect(spoofed.status).toBe(200);
    expect(spoofed.body).toEqual(plain.body);
    expect(spoofed.body.token_endpoint).toBe(`${untrusting.auth.baseUrl}/oauth/token`);
    expect(spoofed.text).not.toContain('evil.example');
  });

  it("are believed from a trusted proxy, and the gateway replaces a client's with its own", async () => {
    const viaProxy = await trusting.auth.get<Metadata>(DISCOVERY, {
      headers: { 'x-forwarded-host': 'auth.example', 'x-forwarded-proto': 'https' },
    });
    expect(viaProxy.body.token_endpoint).toBe('https://auth.example/oauth/token');

    // A gateway facing the internet (it trusts nobody's X-Forwarded-*): the client's are replaced.
    const upstreams = { resource: trusting.resource.baseUrl, auth: trusting.auth.baseUrl };
    gateway = await buildGateway(trusting.deps.log, upstreams, '/nonexistent-dashboard', {
      trustProxy: false,
    });
    const web = new HttpClient(await gateway.listen({ host: '127.0.0.1', port: 0 }));
    const throughGateway = await web.get<Metadata>(DISCOVERY, { headers: SPOOFED });
    expect(throughGateway.status).toBe(200);
    expect(throughGateway.body.token_endpoint).toBe(`${web.baseUrl}/oauth/token`);
    expect(throughGateway.text).not.toContain('evil.example');
  });
});
