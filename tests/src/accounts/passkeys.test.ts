import { randomUUID } from 'node:crypto';
import { pruneExpired } from '@beckon/server/jobs/prune-expired';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

/**
 * The passkey operations' refusals and bookkeeping. A passkey's registration, sign-in and
 * step-up with a real authenticator run in the browser (tests/src/web/passkeys.test.ts).
 */

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** A person with a passkey stored as a registration leaves it. */
async function personWithPasskey() {
  const account = await f.account('owner');
  const [passkey] = await server.database.sql<{ id: string }[]>`
    insert into passkeys (user_id, credential_id, public_key, name, device_type)
    values (${account.user.id}, ${randomUUID()}, 'AAAA', 'Phone', 'multiDevice') returning id`;
  return { ...account, auth: server.auth.as(account.token), passkeyId: passkey!.id };
}

/** An assertion as a browser shapes it, for a passkey nobody registered. */
const assertion = (id: string) => ({
  id,
  rawId: id,
  type: 'public-key',
  response: { clientDataJSON: 'e30', authenticatorData: 'AAAA', signature: 'AAAA' },
  clientExtensionResults: {},
});

describe('passkeys', () => {
  it('are managed only by their person, with a session', async () => {
    const alice = await personWithPasskey();
    expect((await alice.auth.get('/auth/passkeys')).body).toEqual([
      {
        id: alice.passkeyId,
        name: 'Phone',
        transports: [],
        synced: true,
        created_at: expect.any(String),
        last_used_at: null,
      },
    ]);
    const renamed = await alice.auth.patch(`/auth/passkeys/${alice.passkeyId}`, { name: 'Pixel' });
    expect(renamed.body).toMatchObject({ id: alice.passkeyId, name: 'Pixel' });

    // Someone else's passkey is unknown to them; an API key and no token are refused.
    const bob = await personWithPasskey();
    expect((await bob.auth.delete(`/auth/passkeys/${alice.passkeyId}`)).status).toBe(404);
    expect((await bob.auth.patch(`/auth/passkeys/${alice.passkeyId}`, { name: 'Mine' })).status).toBe(404);
    const key = await f.apiKey(alice.org.id, alice.user.id);
    const byKey = await server.auth.as(key.token).get('/auth/passkeys');
    expect(byKey.status).toBe(403);
    expect(byKey.body).toMatchObject({ code: 'session_required' });
    expect((await server.auth.as(null).post('/auth/passkeys/registration-options')).status).toBe(401);

    const deleted = await alice.auth.delete(`/auth/passkeys/${alice.passkeyId}`);
    expect(deleted.body).toEqual({ id: alice.passkeyId, deleted: true });
    expect((await alice.auth.get('/auth/passkeys')).body).toEqual([]);
    const audit = await server.database.sql<{ action: string }[]>`
      select action from audit_entries where org_id = ${alice.org.id} and action like 'passkey.%'`;
    expect(audit.map((a) => a.action)).toEqual(['passkey.delete']);
  });

  it('hand out single-use challenges for the relying party of APP_URL, which expire', async () => {
    const alice = await personWithPasskey();
    const registration = await alice.auth.post<{
      challenge: string;
      rp: { id: string; name: string };
      excludeCredentials: { id: string }[];
      authenticatorSelection: Record<string, string>;
    }>('/auth/passkeys/registration-options');
    expect(registration.status).toBe(200);
    expect(registration.body.rp).toEqual({ id: 'localhost', name: 'Beckon' });
    expect(registration.body.excludeCredentials).toHaveLength(1);
    expect(registration.body.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    });
    const signIn = await server.auth.as(null).post<{ challenge: string }>('/auth/passkeys/sign-in-options');
    const stored = await server.database.sql<{ purpose: string; session_id: string | null; minutes: number }[]>`
      select purpose, session_id, (extract(epoch from expires_at - created_at) / 60)::int as minutes
        from webauthn_challenges where challenge in ${server.database.sql([registration.body.challenge, signIn.body.challenge])}
       order by purpose`;
    expect(stored).toEqual([
      { purpose: 'register', session_id: alice.session.id, minutes: 5 },
      { purpose: 'sign_in', session_id: null, minutes: 5 },
    ]);
    await server.database.sql`
      update webauthn_challenges set expires_at = now() - interval '1 second'
       where challenge = ${signIn.body.challenge}`;
    expect((await pruneExpired(server.database.sql)).webauthn_challenges).toBeGreaterThanOrEqual(1);
    const left = await server.database.sql`select challenge from webauthn_challenges`;
    expect(left.map((c) => c.challenge)).toContain(registration.body.challenge);
    expect(left.map((c) => c.challenge)).not.toContain(signIn.body.challenge);
  });

  it('refuse an assertion of an unknown passkey, and a registration that does not verify', async () => {
    const unknown = await server.auth.as(null).post('/auth/passkeys/sign-in', { response: assertion('bm9uZQ') });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'unknown passkey', code: 'passkey_refused' });

    const alice = await personWithPasskey();
    const forged = await alice.auth.post('/auth/passkeys', {
      response: { ...assertion('bm9uZQ'), response: { clientDataJSON: 'e30', attestationObject: 'AAAA' } },
    });
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ code: 'passkey_refused' });
    expect((await alice.auth.get('/auth/passkeys')).body).toHaveLength(1);
  });
});
