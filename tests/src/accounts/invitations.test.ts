import { randomUUID } from 'node:crypto';
import { generateOrgToken, generateToken, hashToken, orgOfToken } from '@beckon/server/auth/tokens';
import { manualClock } from '@beckon/server/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, planLimitBody, type SystemRole, startTestServer, type TestServer } from '../harness';
import { mailText, startSmtpServer } from '../harness/smtp';
import { DAY, type Grant } from './helpers';

type Invitation = {
  id: string;
  code: string;
  url: string;
  kind: string;
  use_count: number;
  max_uses: number;
};

const clock = manualClock();
let server: TestServer;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let f: Factories;

beforeAll(async () => {
  smtp = await startSmtpServer();
  server = await startTestServer({ clock, env: { SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port) } });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const roleId = async (name: SystemRole) => (await f.systemRole(name)).id;

/** An organization with an owner (and `extraMembers` more members), on both processes. */
async function organization(extraMembers = 0) {
  const account = await f.account('owner');
  for (let i = 0; i < extraMembers; i++) await f.member(account.org.id, (await f.user()).id, 'member');
  return { ...account, admin: server.resource.as(account.token) };
}

/** A person signed in to their own organization, ready to accept. */
async function invitee(email = `i-${randomUUID().slice(0, 8)}@example.test`) {
  const account = await f.account('owner');
  await server.database.sql`update users set email = ${email} where id = ${account.user.id}`;
  return { ...account, email, auth: server.auth.as(account.token) };
}

async function invite(admin: ReturnType<typeof server.resource.as>, body: Record<string, unknown>) {
  const res = await admin.post<Invitation>('/api/admin/invitations', {
    role_id: await roleId('member'),
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('invitations: admin side', () => {
  it('creates email and link invitations, mails the email one, lists the active ones', async () => {
    const { admin, org } = await organization();
    const person = `Mixed.Case-${randomUUID().slice(0, 6)}@Example.test`;
    const byEmail = await invite(admin, { kind: 'email', email: person });
    expect(byEmail).toMatchObject({ kind: 'email', email: person.toLowerCase(), max_uses: 1, use_count: 0 });
    expect(byEmail.url).toBe(`http://localhost:5173/invite/${byEmail.code}`);
    const byLink = await invite(admin, { kind: 'link', max_uses: 5 });
    expect(byLink).toMatchObject({ kind: 'link', email: null, max_uses: 5 });

    const mail = await smtp.waitForMail(person.toLowerCase());
    expect(mailText(mail.raw)).toContain(byEmail.url);

    const list = await admin.get<Array<Record<string, unknown>>>('/api/admin/invitations');
    expect(list.body.map((i) => i.id)).toEqual([byLink.id, byEmail.id]);
    expect(list.text).not.toContain(byEmail.code);
    const [row] = await server.database.sql<
      { code_hash: string }[]
    >`select code_hash from invitations where id = ${byEmail.id}`;
    expect(row!.code_hash).not.toBe(byEmail.code);
    const audit = await server.database
      .sql`select 1 from audit_entries where org_id = ${org.id} and action = 'invitation.create'`;
    expect(audit).toHaveLength(2);
  });

  it('validates the body', async () => {
    const { admin } = await organization();
    const role_id = await roleId('member');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ kind: 'email', role_id }, 'email'],
      [{ kind: 'link', role_id, email: 'a@b.test' }, 'email'],
      [{ kind: 'email', role_id, email: 'a@b.test', max_uses: 3 }, 'max_uses'],
      [{ kind: 'sms', role_id }, 'kind'],
      [{ kind: 'link', role_id: randomUUID() }, 'role_id'],
    ];
    for (const [body, field] of cases) {
      const res = await admin.post<{ fields: Record<string, string> }>('/api/admin/invitations', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body.fields)).toContain(field);
    }
  });

  it('needs users.invite, and the inviter must hold every permission of the role', async () => {
    const { org } = await organization();
    const as = async (role: SystemRole) => {
      const user = await f.user();
      await f.member(org.id, user.id, role);
      return server.resource.as((await f.session(user.id, org.id)).token);
    };
    const member = await as('member');
    const denied = await member.post('/api/admin/invitations', {
      kind: 'link',
      role_id: await roleId('viewer'),
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'users.invite',
    });
    expect((await member.get('/api/admin/invitations')).status).toBe(403);

    const admin = await as('admin');
    const escalation = await admin.post('/api/admin/invitations', {
      kind: 'link',
      role_id: await roleId('owner'),
    });
    expect(escalation.status).toBe(403);
    expect(escalation.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.delete',
    });
    expect(
      (await admin.post('/api/admin/invitations', { kind: 'link', role_id: await roleId('admin') })).status,
    ).toBe(201);
  });

  it("revokes; another organization's invitation is a 404", async () => {
    const { admin } = await organization();
    const other = await organization();
    const invitation = await invite(admin, { kind: 'link' });
    expect((await other.admin.post(`/api/admin/invitations/${invitation.id}/revoke`)).status).toBe(404);
    const revoked = await admin.post<{ revoked_at: string }>(
      `/api/admin/invitations/${invitation.id}/revoke`,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await admin.get<unknown[]>('/api/admin/invitations')).body).toEqual([]);
    const preview = await server.auth.get(`/auth/invitations/${invitation.code}`);
    expect(preview.status).toBe(410);
    const person = await invitee();
    const accept = await person.auth.post('/auth/invitations/accept', { code: invitation.code });
    expect(accept.status).toBe(410);
    expect(accept.body).toEqual({ error: 'invitation revoked', code: 'invitation_inactive' });
  });
});

describe('invitations: the invitee', () => {
  it('previews without signing in and without secrets', async () => {
    const { admin, org } = await organization();
    const invitation = await invite(admin, { kind: 'email', email: 'secret-person@example.test' });
    const preview = await server.auth.get<Record<string, unknown>>(`/auth/invitations/${invitation.code}`);
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      org: { name: org.name },
      role: { name: 'member', description: expect.any(String) },
      kind: 'email',
      expires_at: expect.any(String),
    });
    expect(preview.text).not.toContain('secret-person');
    expect((await server.auth.get('/auth/invitations/unknown-code')).status).toBe(404);
  });

  it('accepting an email invitation joins with the role and returns a 7-day session for the organization', async () => {
    const { admin, org } = await organization();
    const person = await invitee();
    const invitation = await invite(admin, { kind: 'email', email: person.email.toUpperCase() });
    const accepted = await person.auth.post<Grant>('/auth/invitations/accept', { code: invitation.code });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ user_id: person.user.id, org_id: org.id });
    const lifetime = Date.parse(accepted.body.expires_at) - clock().getTime();
    expect(lifetime).toBeGreaterThan(7 * DAY - 60_000);
    expect(lifetime).toBeLessThanOrEqual(7 * DAY);

    const me = await server.resource.as(accepted.body.token).get<{ org_id: string; role: string }>('/api/me');
    expect(me.body).toMatchObject({ org_id: org.id, role: 'member' });
    clock.advance(7 * DAY + 1000);
    expect((await server.resource.as(accepted.body.token).get('/api/me')).status).toBe(401);

    const [audit] = await server.database.sql<{ actor_id: string; data: { invitation_id: string } }[]>`
      select actor_id, data from audit_entries where org_id = ${org.id} and action = 'invitation.accept'`;
    expect(audit).toMatchObject({ actor_id: person.user.id, data: { invitation_id: invitation.id } });

    const reused = await (await invitee()).auth.post('/auth/invitations/accept', { code: invitation.code });
    expect(reused.status).toBe(410);
  });

  it('refuses an email invitation accepted by someone else (403) and keeps it usable', async () => {
    const { admin } = await organization();
    const invitation = await invite(admin, { kind: 'email', email: 'right@example.test' });
    const wrong = await (await invitee()).auth.post('/auth/invitations/accept', { code: invitation.code });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({
      error: 'this invitation is for another email address',
      code: 'other_email',
    });
    const right = await invitee('right@example.test');
    expect((await right.auth.post('/auth/invitations/accept', { code: invitation.code })).status).toBe(200);
  });

  it('a link invitation serves max_uses people, then 410', async () => {
    const { admin } = await organization();
    const invitation = await invite(admin, { kind: 'link', max_uses: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await (await invitee()).auth.post('/auth/invitations/accept', { code: invitation.code })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 410]);
  });

  it('counts racing accepts of a link invitation exactly', async () => {
    const { admin } = await organization();
    const invitation = await invite(admin, { kind: 'link', max_uses: 1 });
    const people = await Promise.all([invitee(), invitee(), invitee()]);
    const results = await Promise.all(
      people.map((p) => p.auth.post('/auth/invitations/accept', { code: invitation.code })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 410, 410]);
  });

  it('expires (moving the clock): 410', async () => {
    const { admin } = await organization();
    const invitation = await invite(admin, { kind: 'link', expires_in_days: 1 });
    clock.advance(DAY + 1000);
    const res = await (await invitee()).auth.post('/auth/invitations/accept', { code: invitation.code });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: 'invitation expired', code: 'invitation_inactive' });
  });

  it('answers 402 max_seats when the organization is full (Free: 3 seats)', async () => {
    const { admin, org } = await organization(2);
    const invitation = await invite(admin, { kind: 'link', max_uses: 3 });
    const res = await (await invitee()).auth.post('/auth/invitations/accept', { code: invitation.code });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(planLimitBody('max_seats', 3, 3));
    const [seats] = await server.database.sql<{ n: number }[]>`
      select count(*)::int as n from memberships where org_id = ${org.id}`;
    expect(seats?.n).toBe(3);
  });

  it('needs a session: unknown code 404, current member 409, API key 403', async () => {
    const { admin, org, user } = await organization();
    const invitation = await invite(admin, { kind: 'link', max_uses: 3 });
    const person = await invitee();
    expect((await person.auth.post('/auth/invitations/accept', { code: 'nope' })).status).toBe(404);
    expect((await server.auth.post('/auth/invitations/accept', { code: invitation.code })).status).toBe(401);
    const owner = server.auth.as((await f.session(user.id, org.id)).token);
    const member = await owner.post('/auth/invitations/accept', { code: invitation.code });
    expect(member.status).toBe(409);
    const key = await f.apiKey(person.org.id, person.user.id);
    expect(
      (await server.auth.as(key.token).post('/auth/invitations/accept', { code: invitation.code })).status,
    ).toBe(403);
  });

  it('a code names its organization; another organization in it is a 404', async () => {
    const { admin, org } = await organization();
    const invitation = await invite(admin, { kind: 'link', max_uses: 2 });
    expect(orgOfToken(invitation.code)).toBe(org.id);
    const elsewhere = await f.org();
    const renamed = generateOrgToken(elsewhere.id).slice(0, 26) + invitation.code.slice(26);
    expect((await server.auth.get(`/auth/invitations/${renamed}`)).status).toBe(404);
    expect((await server.auth.get(`/auth/invitations/${invitation.code}`)).status).toBe(200);
  });

  it('a code issued before codes named their organization is accepted through its recorded organization', async () => {
    const { admin, org } = await organization();
    const invitation = await invite(admin, { kind: 'link', max_uses: 2 });
    // As the migration leaves it: a plain code, its organization recorded by hash.
    const old = generateToken();
    await server.database.sql`
      update invitations set code_hash = ${hashToken(old)} where org_id = ${org.id} and id = ${invitation.id}`;
    expect((await server.auth.get(`/auth/invitations/${old}`)).status).toBe(404);
    await server.database.sql`
      insert into legacy_credentials (token_hash, org_id) values (${hashToken(old)}, ${org.id})`;
    expect((await server.auth.get(`/auth/invitations/${old}`)).status).toBe(200);
    const person = await invitee();
    const accepted = await person.auth.post<Grant>('/auth/invitations/accept', { code: old });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ user_id: person.user.id, org_id: org.id });
  });
});
