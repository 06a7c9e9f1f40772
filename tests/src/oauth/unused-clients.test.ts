import { pruneExpired } from '@beckon/server/jobs/prune-expired';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { Browser } from './browser';
import { authorize, startOAuthServer, ThirdPartyClient } from './flow';

let server: TestServer;
let issuer: string;

beforeAll(async () => {
  server = await startOAuthServer();
  issuer = server.authDeps.env.ISSUER_URL;
});
afterAll(async () => {
  await server?.close();
});

const clientRows = async (clientId: string) =>
  (
    await server.database.sql<{ n: number }[]>`
      select count(*)::int as n from oauth_records where model = 'Client' and client_id = ${clientId}`
  )[0]!.n;

/** Registered `hours` ago, as far as the database can tell. */
const registeredAgo = (clientId: string, hours: number) => server.database.sql`
  update oauth_records set created_at = now() - make_interval(hours => ${hours})
   where model = 'Client' and client_id = ${clientId}`;

describe('dynamically registered clients', () => {
  it('are removed once unused for OAUTH_CLIENT_UNUSED_HOURS, and kept while a grant or token refers to them', async () => {
    const unused = await ThirdPartyClient.register(issuer, { name: 'Never used' });
    const recent = await ThirdPartyClient.register(issuer, { name: 'Just registered' });
    const used = await ThirdPartyClient.register(issuer, { name: 'Used' });
    const { location, verifier, state } = await authorize(new Browser(), used, 'user@example.test');
    const tokens = await used.exchange(used.callback(location, state), verifier);
    await registeredAgo(unused.client.client_id, 25);
    await registeredAgo(used.client.client_id, 25);

    const counts = await pruneExpired(server.database.sql, { unusedClientHours: 24 });
    expect(counts.oauth_clients).toBe(1);
    expect(await clientRows(unused.client.client_id)).toBe(0);
    expect(await clientRows(recent.client.client_id)).toBe(1);
    expect(await clientRows(used.client.client_id)).toBe(1);
    // The removed client is unknown to the authorization server; the used one still works.
    await expect(unused.refresh('anything')).rejects.toMatchObject({
      status: 401,
      cause: [{ parameters: { error: 'invalid_client' } }],
    });
    await expect(recent.refresh('anything')).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await used.refresh(String(tokens.refresh_token))).access_token).toBeTruthy();
    expect((await pruneExpired(server.database.sql, { unusedClientHours: 24 })).oauth_clients).toBe(0);
  });
});
