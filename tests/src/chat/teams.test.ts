import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Factories, type FakeTeams, type HttpClient, planLimitBody, type TestServer } from '../harness';
import {
  eventually,
  type Item,
  onPlan,
  startChatServer,
  TEAMS_APP_ID,
  TEAMS_CHANNEL,
  TEAMS_SECRET,
  teamsActivity,
  teamsCardAction,
  teamsInstalled,
  teamsMessage,
  YES_NO,
} from './setup';

let server: TestServer;
let teams: FakeTeams;
let close: () => Promise<void>;
let owner: HttpClient;
let team: Awaited<ReturnType<Factories['team']>>;
let ownerId: string;
let orgId: string;
let opsId: string;

const BOB = '29:1bob-teams-user';
const CAROL = '29:1carol-teams-user';

beforeAll(async () => {
  const started = await startChatServer();
  ({ server, teams, close } = started);
  team = await started.f.team(server.resource);
  owner = team.owner;
  ownerId = team.user.id;
  orgId = team.org.id;
  teams.app(TEAMS_APP_ID, TEAMS_SECRET);
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
});
afterAll(async () => {
  await close?.();
});

const item = async (id: string) => (await owner.get<Item>(`/api/items/${id}`)).body;
type Card = {
  refresh?: { action: { verb: string; data: Record<string, string> } };
  body: { text: string }[];
  actions: { type: string; title: string; verb?: string; data?: { action: string }; url?: string }[];
};
const cardOf = (body: Record<string, unknown> | null) =>
  ((body?.attachments as { contentType: string; content: Card }[] | undefined)?.[0]?.content ??
    null) as Card | null;
/** The card of an invoke's response (the card as it is now, for the person who acted). */
const answeredCard = (body: Record<string, unknown> | null) => {
  expect(body).toMatchObject({ statusCode: 200, type: 'application/vnd.microsoft.card.adaptive' });
  return body?.value as Card;
};
const texts = (card: Card | null) => (card?.body ?? []).map((b) => b.text).join('\n');

async function posted(form: object | undefined = YES_NO) {
  const created = (await owner.post<Item>('/api/items', { title: 'Deploy v2?', channel_id: opsId, form }))
    .body;
  const message = await teams.waitForMention('POST', created.id);
  return { item: created, message, card: cardOf(message.body) as Card };
}

describe('connecting a bot', () => {
  it('is a Team plan feature: Free is refused with the plan-gate 402', async () => {
    const res = await owner.put('/api/teams/connection', {
      app_id: TEAMS_APP_ID,
      app_password: TEAMS_SECRET,
    });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(planLimitBody('teams_bots', 0, 0));
  });

  it('connects by app id and secret, learns conversations from Bot Framework, and routes a channel', async () => {
    await onPlan(server, orgId, 'team');
    const refused = await owner.put('/api/teams/connection', {
      app_id: TEAMS_APP_ID,
      app_password: 'not-the-secret',
    });
    expect(refused.status).toBe(400);
    const res = await owner.put<{ connection: Record<string, unknown> }>('/api/teams/connection', {
      app_id: TEAMS_APP_ID,
      app_password: TEAMS_SECRET,
    });
    expect(res.status).toBe(200);
    expect(res.body.connection).toMatchObject({
      app_id: TEAMS_APP_ID,
      tenant_id: null,
      messaging_endpoint: `http://localhost:3000/webhooks/teams/${orgId}`,
    });
    const unknown = await owner.put(`/api/teams/routes/${opsId}`, { conversation_id: TEAMS_CHANNEL.id });
    expect(unknown.status).toBe(400);
    const installed = await teamsActivity(server, teams, orgId, teamsInstalled(BOB));
    expect(installed.status).toBe(200);
    const conversations =
      await owner.get<{ conversation_id: string; kind: string; name: string }[]>('/api/teams/conversations');
    expect(conversations.body).toEqual([
      expect.objectContaining({ conversation_id: TEAMS_CHANNEL.id, kind: 'channel', name: 'Ops team / ops' }),
    ]);
    const route = await owner.put(`/api/teams/routes/${opsId}`, { conversation_id: TEAMS_CHANNEL.id });
    expect(route.status).toBe(200);
    expect(route.body).toMatchObject({
      conversation_id: TEAMS_CHANNEL.id,
      conversation_name: 'Ops team / ops',
    });
  });
});

describe('activities', () => {
  it('refuses a missing, forged, foreign, stale or misdirected token with 401', async () => {
    const { item: created, card } = await posted();
    const click = () => teamsCardAction(BOB, 'answer', card.actions[0]?.data ?? {});
    const send = (options: Parameters<typeof teamsActivity>[4]) =>
      teamsActivity(server, teams, orgId, click(), options);
    const invalid = { error: 'invalid Bot Framework token', code: 'invalid_signature' };
    expect(await send({ unsigned: true })).toEqual({ status: 401, body: invalid });
    expect(await send({ foreignKey: true })).toEqual({ status: 401, body: invalid });
    expect(await send({ audience: '0b7c3a52-0000-4000-8000-000000000001' })).toEqual({
      status: 401,
      body: invalid,
    });
    expect(await send({ issuer: 'https://sts.windows.net/evil/' })).toEqual({ status: 401, body: invalid });
    expect(await send({ serviceUrl: 'https://smba.example.net/' })).toEqual({ status: 401, body: invalid });
    // A key endorsed for Teams only signs Teams' activities.
    const elsewhere = await teamsActivity(server, teams, orgId, { ...click(), channelId: 'slack' });
    expect(elsewhere).toEqual({ status: 401, body: invalid });
    expect(await send({ expiresIn: -10 * 60 })).toEqual({
      status: 401,
      body: { error: 'the Bot Framework token has expired', code: 'invalid_signature' },
    });
    expect((await item(created.id)).status).toBe('open');
  });

  it('posts the item as an Adaptive Card with universal actions, as a delivery', async () => {
    const { item: created, message, card } = await posted();
    expect(message.path).toBe(`/connector/v3/conversations/${TEAMS_CHANNEL.id}/activities`);
    expect(message.token).toMatch(/^token-/);
    expect(card.refresh?.action).toEqual({
      type: 'Action.Execute',
      verb: 'refresh',
      data: { item: created.id },
    });
    expect(card.actions.map((a) => [a.type, a.title, a.verb, a.data?.action])).toEqual([
      ['Action.Execute', 'Yes', 'answer', `a:${created.id}:0`],
      ['Action.Execute', 'No', 'answer', `a:${created.id}:1`],
    ]);
    const deliveries = await eventually(
      async () =>
        (
          await owner.get<{ deliveries: { kind: string; url: string; status_code: number }[] }>(
            `/api/deliveries?item_id=${created.id}`,
          )
        ).body.deliveries,
      (list) => list.length > 0,
    );
    expect(deliveries).toEqual([
      expect.objectContaining({
        kind: 'teams',
        status_code: 200,
        url: `${teams.serviceUrl}v3/conversations/${encodeURIComponent(TEAMS_CHANNEL.id)}/activities`,
      }),
    ]);
  });

  it('links a richer form to the item page', async () => {
    const form = { id: 't', fields: [{ id: 'why', type: 'text', label: 'Why?', required: true }] };
    const { item: created, card } = await posted(form);
    expect(card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Answer in Beckon', url: expect.stringContaining(created.id) },
    ]);
  });

  it('tells an unlinked user to link, links by a message, then answers as that person once', async () => {
    const { item: created, card } = await posted();
    const yes = card.actions[0]?.data ?? {};
    const unlinked = await teamsActivity(server, teams, orgId, teamsCardAction(BOB, 'answer', yes));
    expect(texts(answeredCard(unlinked.body))).toContain('http://localhost:5173/settings/teams');
    expect((await item(created.id)).status).toBe('open');

    const code = (await owner.post<{ code: string }>('/api/teams/links')).body.code;
    const linked = await teamsActivity(server, teams, orgId, teamsMessage(BOB, `link ${code}`));
    expect(linked.status).toBe(200);
    const reply = await teams.waitForMention('POST', 'Your account is linked');
    expect(reply.path).toMatch(new RegExp(`/conversations/a:personal-${BOB}/activities/activity-\\d+$`));
    expect((await owner.get('/api/teams/links/me')).body).toMatchObject({ linked: true });

    const click = teamsCardAction(BOB, 'answer', yes);
    const answered = await teamsActivity(server, teams, orgId, click);
    const after = answeredCard(answered.body);
    expect(texts(after)).toContain('via teams: Yes');
    expect(texts(after)).toContain('Answered: Yes.');
    expect(after.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);
    expect(await item(created.id)).toMatchObject({
      status: 'answered',
      answered_by: { type: 'user', id: ownerId },
      answered_via: 'teams',
    });
    // The same activity again (a replay) answers the card as it is, and does nothing.
    const replay = await teamsActivity(server, teams, orgId, click);
    expect(texts(answeredCard(replay.body))).not.toContain('Answered: Yes.');
    const audit = await owner.get<{ entries: { action: string }[] }>(`/api/audit?item_id=${created.id}`);
    expect(audit.body.entries.filter((e) => e.action === 'item.answer')).toHaveLength(1);

    const update = await teams.waitForMention('PUT', 'via teams');
    expect(update.path).toMatch(new RegExp(`/conversations/${TEAMS_CHANNEL.id}/activities/act-\\d+$`));
    expect(cardOf(update.body)?.actions.map((a) => a.type)).toEqual(['Action.OpenUrl']);
  });

  it('updates the card after an answer elsewhere, and refreshes it for every viewer', async () => {
    const { item: created, card } = await posted();
    const res = await owner.post(`/api/items/${created.id}/answer`, { values: { ok: false } });
    expect(res.status).toBe(200);
    const update = await teams.waitForMention('PUT', created.id);
    expect(texts(cardOf(update.body))).toMatch(/^Answered by .+: No$/m);
    const refreshed = await teamsActivity(
      server,
      teams,
      orgId,
      teamsCardAction('29:carol', 'refresh', { item: created.id }),
    );
    expect(texts(answeredCard(refreshed.body))).toMatch(/Answered by .+: No/);
    // A late click on the old card changes nothing.
    const late = await teamsActivity(
      server,
      teams,
      orgId,
      teamsCardAction(BOB, 'answer', card.actions[0]?.data ?? {}),
    );
    expect(texts(answeredCard(late.body))).toContain('already decided');
    expect((await item(created.id)).response).toEqual({ ok: false });
  });

  it('posts an item meant for a linked person to their chat with the bot, and a reminder replies to it', async () => {
    const carol = await team.join('member');
    const code = (await carol.api.post<{ code: string }>('/api/teams/links')).body.code;
    await teamsActivity(server, teams, orgId, teamsMessage(CAROL, `link ${code}`));
    const chat = `/connector/v3/conversations/a:personal-${CAROL}/activities`;
    const created = (
      await owner.post<Item>('/api/items', {
        title: 'Rotate keys',
        channel_id: opsId,
        form: YES_NO,
        assignees: [{ type: 'user', id: carol.id }],
        repeat_until_ack: { every_minutes: 5 },
      })
    ).body;
    const [activity] = await eventually(
      () => server.database.sql<{ activity_id: string }[]>`
        select activity_id from teams_messages where item_id = ${created.id} and conversation_id = ${`a:personal-${CAROL}`}`,
      (rows) => rows.length > 0,
    );
    const posts = teams.calls.filter((c) => c.path === chat && JSON.stringify(c.body).includes(created.id));
    expect(posts).toHaveLength(1);
    expect(cardOf(posts[0]?.body ?? null)?.actions.map((a) => a.verb)).toEqual(['answer', 'answer']);
    const [job] = await server.database.sql<{ id: string }[]>`
      select id from graphile_worker._private_jobs where key = ${`repeat_item:${created.id}`}`;
    await server.database.sql`update graphile_worker._private_jobs set run_at = now() where id = ${job!.id}`;
    const nudge = await teams.waitForMention('POST', 'Reminder: Rotate keys: still waiting for an answer');
    expect(nudge.path).toBe(`${chat}/${activity?.activity_id}`);
    expect(nudge.body).toMatchObject({ type: 'message', replyToId: activity?.activity_id });
  });
});
