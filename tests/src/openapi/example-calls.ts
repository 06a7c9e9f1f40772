// Longer than 300 lines: one walk through every operation of both documents, in the order a new
// organization meets them; each step uses what an earlier one created, so it reads as one story.
import { randomUUID } from 'node:crypto';
import { pushAnswerToken } from '@beckon/server/modules/push/push-token';
import type { FakeSlack, FakeTwilio, HttpClient, TestServer } from '../harness';
import { linkSlack, oauthReturn, onPlan, startInstall } from '../slack/setup';
import { ACCOUNT, SMS_FROM } from '../twilio/setup';
import type { ExampleRecorder } from './recorder';

type Row = Record<string, unknown> & { id: string };
type Grant = { token: string; user_id: string; org_id: string };

export type Walk = { server: TestServer; slack: FakeSlack; twilio: FakeTwilio; record: ExampleRecorder };

const FORM = {
  id: 'deploy',
  fields: [
    { id: 'approve', type: 'yesno', label: 'Deploy v2.4 to production?' },
    { id: 'note', type: 'text', label: 'Note for the on-call engineer' },
  ],
};

/** Sign-in, organizations, keys and invitations: the account API (/auth). */
export async function accounts({ server, record }: Walk) {
  const auth = server.auth;
  const call = record.on('auth');
  await call(auth, 'GET /config');
  const link = await call<{ token: string }>(auth, 'POST /magic-link', {
    body: { email: 'ada@example.com' },
  });
  const first = await call<Grant>(auth, 'GET /verify', { query: { token: link.token } });
  await server.database.sql`update users set name = 'Ada Lovelace' where id = ${first.user_id}`;
  const personal = auth.as(first.token);
  const org = await call<Row>(personal, 'POST /orgs', { body: { name: 'Acme Robotics' } });
  const grant = await call<Grant>(personal, 'POST /switch-org', { body: { org_id: org.id } });
  const owner = auth.as(grant.token);
  await call(owner, 'GET /me');
  await call(owner, 'GET /orgs');
  const grace = await call<Grant>(auth, 'POST /dev-login', { body: { email: 'grace@example.com' } });
  await server.database.sql`update users set name = 'Grace Hopper' where id = ${grace.user_id}`;
  return { owner: server.resource.as(grant.token), ownerAuth: owner, ada: first, grace, orgId: org.id };
}

/** The organization's agent and its key: what the first item needs. */
export async function agentKey({ server, record }: Walk, owner: HttpClient, ownerAuth: HttpClient) {
  const agent = await record.call<Row>('resource', owner, 'POST /admin/agents', {
    body: { name: 'deploy-bot', description: 'Asks before each production deploy' },
  });
  await record.call('resource', owner, 'GET /admin/agents');
  const key = await record.call<Row & { key: string }>('auth', ownerAuth, 'POST /api-keys', {
    body: { agent_id: agent.id, label: 'CI pipeline' },
  });
  await record.call('auth', ownerAuth, 'GET /api-keys');
  const spare = await record.call<Row>('auth', ownerAuth, 'POST /api-keys', {
    body: { agent_id: agent.id, label: 'laptop', expires_in_days: 30 },
  });
  await record.call('auth', ownerAuth, 'POST /api-keys/revoke', { body: { key_id: spare.id } });
  return server.resource.as(key.key);
}

/** An item asked by the agent, worked on and answered by a person. */
export async function items({ record }: Walk, owner: HttpClient, bot: HttpClient, adaId: string) {
  const call = record.on('resource');
  await call(owner, 'POST /channels', {
    body: { name: 'deploys', mode: 'open', description: 'Production deploys' },
  });
  await call(owner, 'GET /channels');
  await call(owner, 'POST /templates', {
    body: {
      name: 'deploy',
      description: 'A deploy question',
      fields: { level: 'warning', tags: ['deploy'], form: FORM },
    },
  });
  await call(owner, 'GET /templates');
  const item = await call<Row>(bot, 'POST /items', {
    headers: { 'idempotency-key': 'deploy-v2.4' },
    body: {
      title: 'Deploy v2.4 to production?',
      message: 'Build **#1287** passed. Changes: faster search, new billing page.',
      channel: 'deploys',
      level: 'warning',
      tags: ['deploy', 'production'],
      form: FORM,
      metadata: { build: 1287 },
      deadline_at: new Date(Date.now() + 3600_000).toISOString(),
    },
  });
  const id = { id: item.id };
  await call(owner, 'GET /items', { query: { status: 'open', limit: '20' } });
  await call(owner, 'GET /items/{id}', { params: id });
  await call(bot, 'PATCH /items/{id}', { params: id, body: { priority: 1 } });
  await call(owner, 'POST /items/{id}/comments', {
    params: id,
    body: { body: 'Checking the dashboards first.' },
  });
  await call(owner, 'GET /items/{id}/comments', { params: id });
  const file = await call<Row>(bot, 'POST /items/{id}/attachments', {
    params: id,
    body: {
      filename: 'changelog.txt',
      content_type: 'text/plain',
      data: Buffer.from('v2.4: faster search, new billing page\n').toString('base64'),
    },
  });
  await call(owner, 'GET /items/{id}/attachments', { params: id });
  await call(owner, 'GET /items/{id}/attachments/{aid}/download', { params: { ...id, aid: file.id } });
  await call(bot, 'DELETE /items/{id}/attachments/{aid}', { params: { ...id, aid: file.id } });
  await call(owner, 'POST /items/{id}/assign', {
    params: id,
    body: { assignees: [{ type: 'user', id: adaId }] },
  });
  await call(owner, 'POST /items/{id}/claim', { params: id });
  await call(owner, 'POST /items/{id}/unclaim', { params: id });
  await call(owner, 'POST /items/{id}/ack', { params: id });
  await call(owner, 'POST /items/{id}/pin', { params: id });
  await call(owner, 'POST /items/{id}/unpin', { params: id });
  const later = new Date(Date.now() + 600_000).toISOString();
  await call(owner, 'POST /items/{id}/snooze', { params: id, body: { until: later } });
  await call(owner, 'POST /items/{id}/unsnooze', { params: id });
  await call(owner, 'POST /items/{id}/answer', {
    params: id,
    body: { values: { approve: true, note: 'Go ahead, watch the error rate.' } },
  });
  await call(owner, 'GET /items/{id}/timeline', { params: id });
  await call(owner, 'GET /items/{id}/receipt', { params: id });
  await call(owner, 'POST /receipts/rotate-key');
  await call(owner, 'POST /items/{id}/archive', { params: id });
  await call(owner, 'POST /items/{id}/unarchive', { params: id });

  const notice = await call<Row>(bot, 'POST /items', { body: { title: 'Nightly backup finished' } });
  await call(owner, 'POST /items/{id}/dismiss', { params: { id: notice.id } });
  await call(owner, 'POST /items/{id}/restore', { params: { id: notice.id } });
  await call(bot, 'POST /items/{id}/withdraw', { params: { id: notice.id } });
  await call(owner, 'GET /audit', { query: { item_id: item.id, limit: '20' } });
  await call(owner, 'GET /audit/verify');
  await call(owner, 'GET /audit/export');
  await call(owner, 'POST /audit/checkpoint');
  await call(owner, 'GET /stats');
  await call(owner, 'DELETE /templates/{name}', { params: { name: 'deploy' } });
  return item.id;
}

/** Members, roles, teams and invitations of the organization. */
export async function people({ record }: Walk, owner: HttpClient, auth: HttpClient, grace: Grant) {
  const call = record.on('resource');
  const roles = await call<Row[]>(owner, 'GET /admin/roles');
  const member = roles.find((r) => r.name === 'member') as Row;
  const invitation = await call<Row & { code: string }>(owner, 'POST /admin/invitations', {
    body: { kind: 'email', email: 'grace@example.com', role_id: member.id },
  });
  await call(owner, 'GET /admin/invitations');
  const graceAuth = auth.as(grace.token);
  await record.call('auth', graceAuth, 'GET /invitations/{code}', { params: { code: invitation.code } });
  await record.call('auth', graceAuth, 'POST /invitations/accept', { body: { code: invitation.code } });
  const link = await call<Row & { code: string }>(owner, 'POST /admin/invitations', {
    body: { kind: 'link', role_id: member.id, max_uses: 5, expires_in_days: 7 },
  });
  await call(owner, 'POST /admin/invitations/{id}/revoke', { params: { id: link.id } });
  await call(owner, 'GET /admin/users');
  const reviewer = await call<Row>(owner, 'POST /admin/roles', {
    body: { name: 'reviewer', description: 'Answers items', permissions: ['items.read', 'items.write'] },
  });
  const roleId = { role_id: reviewer.id };
  await call(owner, 'PATCH /admin/roles/{role_id}', {
    params: roleId,
    body: { description: 'Answers deploys' },
  });
  const user = { user_id: grace.user_id };
  await call(owner, 'POST /admin/users/{user_id}/role', { params: user, body: { role_id: reviewer.id } });
  const team = await call<Row>(owner, 'POST /admin/teams', { body: { name: 'On-call' } });
  const teamId = { team_id: team.id };
  await call(owner, 'PATCH /admin/teams/{team_id}', { params: teamId, body: { name: 'On-call engineers' } });
  await call(owner, 'GET /admin/teams');
  await call(owner, 'POST /admin/teams/{team_id}/members', { params: teamId, body: user });
  await call(owner, 'GET /admin/teams/{team_id}/members', { params: teamId });
  await schedules(record, owner, team.id, grace.user_id);
  await call(owner, 'DELETE /admin/teams/{team_id}/members/{user_id}', { params: { ...teamId, ...user } });
  await call(owner, 'DELETE /admin/teams/{team_id}', { params: teamId });
  await call(owner, 'POST /admin/users/{user_id}/deactivate', { params: user });
  await call(owner, 'DELETE /admin/roles/{role_id}', { params: roleId });
  await call(owner, 'GET /admin/org');
  await call(owner, 'PATCH /admin/org', { body: { name: 'Acme Robotics Inc.' } });
  await call(owner, 'GET /admin/usage');
  await call(owner, 'GET /settings');
  await call(owner, 'PUT /settings/{key}', { params: { key: 'ui.theme' }, body: { value: 'dark' } });
  await record.call('auth', graceAuth, 'POST /logout');
}

/** An on-call schedule: the team takes weekly turns in office hours, with an override. */
async function schedules(record: ExampleRecorder, owner: HttpClient, teamId: string, userId: string) {
  const call = record.on('resource');
  const layer = {
    name: 'office hours',
    members: [{ type: 'team', id: teamId }],
    start: '2026-03-02T09:00',
    turn: { unit: 'week', count: 1 },
    restrictions: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '18:00' }],
  };
  const body = {
    name: 'platform',
    description: 'Platform on-call',
    time_zone: 'Europe/Paris',
    layers: [layer],
  };
  const schedule = await call<Row>(owner, 'POST /schedules', { body });
  const id = { id: schedule.id };
  await call(owner, 'GET /schedules');
  await call(owner, 'GET /schedules/{id}', { params: id });
  await call(owner, 'PUT /schedules/{id}', { params: id, body: { ...body, description: 'Platform team' } });
  const override = await call<Row>(owner, 'POST /schedules/{id}/overrides', {
    params: id,
    body: { user_id: userId, starts_at: '2026-03-03T08:00:00Z', ends_at: '2026-03-03T17:00:00Z' },
  });
  await call(owner, 'GET /schedules/{id}/overrides', { params: id });
  // The caller on call the next day (set up unrecorded), then swapping that day with Grace's.
  const me = (await owner.get<{ user_id: string }>('/api/me')).body.user_id;
  const nextDay = { starts_at: '2026-03-04T08:00:00Z', ends_at: '2026-03-04T17:00:00Z' };
  await owner.post(`/api/schedules/${schedule.id}/overrides`, { user_id: me, ...nextDay });
  await call(owner, 'POST /schedules/{id}/swaps', {
    params: id,
    body: {
      with_user_id: userId,
      mine: nextDay,
      theirs: { starts_at: '2026-03-03T08:00:00Z', ends_at: '2026-03-03T17:00:00Z' },
    },
  });
  await call(owner, 'GET /schedules/{id}/shifts', {
    params: id,
    query: { from: '2026-03-02T00:00:00Z', days: '3' },
  });
  await call(owner, 'GET /schedules/{id}/calendar-url', { params: id });
  await call(owner, 'GET /on-call/calendar-url');
  await call(owner, 'GET /schedules/{id}/on-call', { params: id, query: { at: '2026-03-03T10:00:00Z' } });
  await call(owner, 'DELETE /schedules/{id}/overrides/{override_id}', {
    params: { ...id, override_id: override.id },
  });
  await escalationPolicies(record, owner, schedule.id, teamId);
  await availability(record, owner, userId);
  await call(owner, 'DELETE /schedules/{id}', { params: id });
}

/** The caller's working hours, and a week away with a delegate. */
async function availability(record: ExampleRecorder, owner: HttpClient, delegateId: string) {
  const call = record.on('resource');
  const working_hours = {
    time_zone: 'Europe/Paris',
    windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '18:00' }],
  };
  await call(owner, 'PUT /me/availability', { body: { working_hours } });
  const away = await call<Row>(owner, 'POST /me/out-of-office', {
    body: { starts_at: '2026-08-03T00:00:00Z', ends_at: '2026-08-10T00:00:00Z', delegate_id: delegateId },
  });
  await call(owner, 'GET /me/availability');
  await call(owner, 'DELETE /me/out-of-office/{id}', { params: { id: away.id } });
}

/** A named escalation policy: the schedule first, then the team, twice over. */
async function escalationPolicies(
  record: ExampleRecorder,
  owner: HttpClient,
  scheduleId: string,
  teamId: string,
) {
  const call = record.on('resource');
  const body = {
    name: 'platform-paging',
    description: 'Whoever is on call, then the whole team',
    levels: [
      { targets: [{ type: 'schedule', id: scheduleId }], delay_minutes: 15 },
      { targets: [{ type: 'team', id: teamId }], delay_minutes: 30 },
    ],
    repeats: 1,
  };
  const policy = await call<Row>(owner, 'POST /escalation-policies', { body });
  const id = { id: policy.id };
  await call(owner, 'GET /escalation-policies');
  await call(owner, 'GET /escalation-policies/{id}', { params: id });
  await call(owner, 'PUT /escalation-policies/{id}', { params: id, body: { ...body, repeats: 2 } });
  await call(owner, 'DELETE /escalation-policies/{id}', { params: id });
}

/** Webhooks both ways, billing, push devices and personal preferences. */
export async function integrations({ server, record }: Walk, owner: HttpClient, itemId: string) {
  const call = record.on('resource');
  const inbound = await call<Row & { token: string }>(owner, 'POST /inbound-webhooks', {
    body: { name: 'Monitoring alerts' },
  });
  await call(server.resource.as(null), 'POST /webhooks/inbound/{token}', {
    params: { token: inbound.token },
    body: { title: 'Disk 91% full on db-2', level: 'error', tags: ['alert'] },
  });
  await call(owner, 'GET /inbound-webhooks');
  await call(owner, 'DELETE /inbound-webhooks/{id}', { params: { id: inbound.id } });
  const hook = await call<Row>(owner, 'POST /webhooks', {
    body: { name: 'Deploy log', url: 'https://hooks.example.com/beckon', events: ['item.answered'] },
  });
  await call(owner, 'GET /webhooks');
  await call(owner, 'GET /deliveries', { query: { item_id: itemId, limit: '20' } });
  await call(owner, 'DELETE /webhooks/{id}', { params: { id: hook.id } });

  const plans = await call<Row[]>(owner, 'GET /billing/plans');
  await call(owner, 'GET /billing/subscription');
  const team = plans.find((p) => p.code === 'team') as Row;
  await call(owner, 'POST /billing/checkout', { body: { plan_id: team.id } });
  await call(owner, 'POST /billing/portal');

  await call(server.resource.as(null), 'GET /push/config');
  const subscription = JSON.stringify({
    endpoint: 'https://push.example.com/send/abc123',
    keys: {
      p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
      auth: 'tBHItJI5svbpez7KI4CCXg',
    },
  });
  await call(owner, 'POST /push/register', { body: { device_token: subscription, platform: 'webpush' } });
  await call(owner, 'GET /push/devices');
  await call(owner, 'POST /push/unregister', { body: { device_token: subscription } });
  const me = await call<{ user_id: string; org_id: string }>(owner, 'GET /me');
  // A person pressing "Yes" on a notification: the token is the one its push carried (signed at
  // delivery for the person it went to).
  const asked = await call<Row>(owner, 'POST /items', {
    body: {
      title: 'Restart the staging cluster?',
      form: { id: 'restart', fields: [{ id: 'ok', type: 'yesno', label: 'Restart?' }] },
    },
  });
  const token = await pushAnswerToken(server.deps, {
    id: randomUUID(),
    org_id: me.org_id,
    user_id: me.user_id,
    item_id: asked.id,
    deadline_at: null,
  });
  await call(server.resource.as(null), 'POST /push/answer', { body: { token, choice: 0 } });
  await call(owner, 'GET /me/preferences');
  await call(owner, 'PUT /me/preferences', {
    body: {
      quiet_hours_enabled: true,
      quiet_hours_start: '22:00',
      quiet_hours_end: '07:00',
      timezone: 'Europe/London',
    },
  });
  await call(owner, 'GET /me/email');
  await call(owner, 'PUT /me/email', { body: { enabled: true, digest: 'daily' } });
}

/** The Slack workspace: install, channels, routes, a linked person, disconnect. */
export async function slack({ server, slack: fake, record }: Walk, owner: HttpClient, orgId: string) {
  const call = record.on('resource');
  // The checkout above would move the organization to Team once paid: the provider's event, by hand.
  await onPlan(server, orgId, 'team');
  const workspace = fake.workspace('T0ACME', 'Acme', { C0DEPLOYS: 'deploys' }, { U0ADA: 'ada' });
  await call<{ url: string }>(owner, 'POST /slack/install');
  // Slack's redirect back counts in the browser that started the install (its cookie).
  const { state, cookie } = await startInstall(owner);
  await oauthReturn(server, { code: workspace.installCode(), state }, cookie);
  await call(owner, 'GET /slack/connection');
  await call(owner, 'GET /slack/channels');
  const channels = await call<Row[]>(owner, 'GET /channels');
  const channel = { channel_id: (channels.find((c) => c.name === 'deploys') as Row).id };
  await call(owner, 'PUT /slack/routes/{channel_id}', {
    params: channel,
    body: { slack_channel_id: 'C0DEPLOYS' },
  });
  await call(owner, 'GET /slack/routes');
  await call(owner, 'DELETE /slack/routes/{channel_id}', { params: channel });
  await call(owner, 'POST /slack/links');
  await linkSlack(server, fake, owner, 'T0ACME', 'U0ADA');
  await call(owner, 'DELETE /slack/connection');
}

/** SMS and WhatsApp: the Twilio account, a person's verified phone, disconnect. */
export async function twilio({ twilio: fake, record }: Walk, owner: HttpClient) {
  const call = record.on('resource');
  await call(owner, 'PUT /twilio/connection', {
    body: { account_sid: ACCOUNT.sid, auth_token: ACCOUNT.token, sms_from: SMS_FROM, whatsapp_from: null },
  });
  await call(owner, 'GET /twilio/connection');
  await call(owner, 'PUT /twilio/phone', { body: { phone: '+15555550123', channel: 'sms' } });
  const code = /\b(\d{6})\b/.exec(fake.to('+15555550123').at(-1)?.body ?? '')?.[1];
  await call(owner, 'POST /twilio/phone/verify', { body: { code } });
  await call(owner, 'GET /twilio/phone');
  await call(owner, 'DELETE /twilio/phone');
  await call(owner, 'DELETE /twilio/connection');
}

/** A coding agent's tool call held for a person: the question, the grant it earns, its end. */
export async function gates({ record }: Walk, owner: HttpClient, bot: HttpClient) {
  const call = record.on('resource');
  const rule = 'Bash(git push *)';
  const asked = await call<{ item: Row }>(bot, 'POST /gate/requests', {
    body: {
      rule,
      title: 'Bash: git push origin main',
      message: '```\ngit push origin main\n```',
      timeout_seconds: 300,
      grant_minutes: 30,
    },
  });
  await call(owner, 'POST /items/{id}/answer', {
    params: { id: asked.item.id },
    body: { values: { decision: 'allow_for', note: 'Fine for the next half hour.' } },
  });
  const grant = await call<Row>(bot, 'POST /gate/grants', { body: { item_id: asked.item.id } });
  await call(bot, 'GET /gate/grants');
  await call(bot, 'DELETE /gate/grants/{id}', { params: { id: grant.id } });
}
