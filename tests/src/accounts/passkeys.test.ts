import { randomUUID } from 'node:crypto';
import { pruneExpired } from '@beckon/server/jobs/prune-expired';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { SoftAuthenticator } from '../harness/soft-authenticator';

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

type Options = { challenge: string; rp: { id: string }; user: { id: string } };
const YES_NO = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Pay?', required: true }] };

describe('passkeys', () => {
  it('register once per challenge, sign in once per assertion, and confirm a risky answer', async () => {
    const account = await f.account('owner');
    const auth = server.auth.as(account.token);
    const device = new SoftAuthenticator(server.deps.env.APP_URL);
    const options = (await auth.post<Options>('/auth/passkeys/registration-options')).body;
    const registration = device.register(options);
    const created = await auth.post('/auth/passkeys', { response: registration, name: 'Soft key' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Soft key', transports: ['internal'], synced: false });
    const again = await auth.post('/auth/passkeys', { response: registration });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'passkey_refused' });

    const anyone = server.auth.as(null);
    const signIn = (await anyone.post<{ challenge: string }>('/auth/passkeys/sign-in-options')).body;
    const assertion = device.assert(signIn);
    const grant = await anyone.post<{ token: string; user_id: string; org_id: string }>(
      '/auth/passkeys/sign-in',
      { response: assertion, org_id: account.org.id },
    );
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({ user_id: account.user.id, org_id: account.org.id });
    expect((await anyone.post('/auth/passkeys/sign-in', { response: assertion })).body).toMatchObject({
      code: 'passkey_refused',
    });

    // A step-up on the first session: its challenge serves that session only.
    const item = (
      await server.resource
        .as((await f.apiKey(account.org.id, account.user.id)).token)
        .post<{ id: string }>('/api/items', {
          title: 'Pay the invoice?',
          form: YES_NO,
          require_reauth: { method: 'passkey', within_minutes: 5 },
        })
    ).body;
    const answer = () =>
      server.resource
        .as(account.token)
        .post<{ receipt: string }>(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect((await answer()).body).toMatchObject({ code: 'reauth_required' });
    const verifyOptions = (await auth.post<{ challenge: string }>('/auth/passkeys/verify-options')).body;
    const stepUp = device.assert(verifyOptions);
    const elsewhere = await server.auth
      .as(grant.body.token)
      .post('/auth/passkeys/verify', { response: stepUp });
    expect(elsewhere.body).toMatchObject({ code: 'passkey_refused' });
    const confirming = device.assert(verifyOptions);
    const confirmed = await auth.post<{ method: string; verified_at: string }>('/auth/passkeys/verify', {
      response: confirming,
    });
    const replayed = await auth.post('/auth/passkeys/verify', { response: confirming });
    expect(replayed.body).toMatchObject({ code: 'passkey_refused' });
    expect(confirmed.body).toEqual({ method: 'passkey', verified_at: expect.any(String) });
    const answered = await answer();
    expect(answered.status).toBe(200);
    expect(decodeJwt(answered.body.receipt)).toMatchObject({
      amr: ['passkey'],
      auth_time: Math.floor(Date.parse(confirmed.body.verified_at) / 1000),
    });
  });

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
    const stored = await server.database.sql<
      { purpose: string; session_id: string | null; minutes: number }[]
    >`
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
    const unknown = await server.auth
      .as(null)
      .post('/auth/passkeys/sign-in', { response: assertion('bm9uZQ') });
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
