import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeDiscord, type HttpClient, planLimitBody, type TestServer } from '../harness';
import {
  componentClick,
  DISCORD_TOKEN,
  discordInteraction,
  eventually,
  type Item,
  linkCommand,
  onPlan,
  startChatServer,
  YES_NO,
} from './setup';

let server: TestServer;
let discord: FakeDiscord;
let close: () => Promise<void>;
let owner: HttpClient;
let agent: HttpClient;
let ownerId: string;
let orgId: string;
let opsId: string;

const CHANNEL = '112233445566778899';
const BOB = '223344556677889900';

beforeAll(async () => {
  const started = await startChatServer();
  ({ server, discord, close } = started);
  const team = await started.f.team(server.resource);
  owner = team.owner;
  ownerId = team.user.id;
  agent = server.resource.as((await started.f.apiKey(team.org.id, ownerId)).token);
  orgId = team.org.id;
  discord.app(DISCORD_TOKEN, '998877665544332211', 'Beckon Test');
  discord.channel(CHANNEL, 'ops');
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
});
afterAll(async () => {
  await close?.();
});

const item = async (id: string) => (await owner.get<Item>(`/api/items/${id}`)).body;
type Component = {
  type: number;
  label?: string;
  custom_id?: string;
  url?: string;
  options?: { value: string }[];
};
const componentsOf = (body: Record<string, unknown> | null) =>
  ((body?.components ?? []) as { components: Component[] }[]).flatMap((row) => row.components);

async function posted(form: object | undefined = YES_NO) {
  const created = (await owner.post<Item>('/api/items', { title: 'Deploy v2?', channel_id: opsId, form }))
    .body;
  const message = await discord.waitForMention('POST', created.id);
  return { item: created, message, components: componentsOf(message.body) };
}

describe('connecting an application', () => {
  it('is a Team plan feature: Free is refused with the plan-gate 402', async () => {
    const res = await owner.put('/api/discord/connection', { bot_token: DISCORD_TOKEN });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(planLimitBody('discord_applications', 0, 0));
  });

  it('connects by the bot token, registers the link command, and routes a channel', async () => {
    await onPlan(server, orgId, 'team');
    const refused = await owner.put('/api/discord/connection', { bot_token: 'x'.repeat(60) });
    expect(refused.status).toBe(400);
    const res = await owner.put<{ connection: Record<string, string> }>('/api/discord/connection', {
      bot_token: DISCORD_TOKEN,
    });
    expect(res.status).toBe(200);
    expect(res.body.connection).toMatchObject({
      application_id: '998877665544332211',
      application_name: 'Beckon Test',
      interactions_url: `http://localhost:3000/webhooks/discord/${orgId}`,
    });
    const command = discord.calls.find((c) => c.method === 'PUT' && c.route.endsWith('/commands'));
    expect(command?.body).toEqual([expect.objectContaining({ name: 'beckon-link' })]);
    const unknown = await owner.put(`/api/discord/routes/${opsId}`, {
      discord_channel_id: '100000000000000001',
    });
    expect(unknown.status).toBe(400);
    const route = await owner.put(`/api/discord/routes/${opsId}`, { discord_channel_id: CHANNEL });
    expect(route.body).toMatchObject({ discord_channel_id: CHANNEL, discord_channel_name: 'ops' });
  });
});

describe('interactions', () => {
  it('answers a signed PING with a PONG', async () => {
    const res = await discordInteraction(server, discord, orgId, { id: '1', type: 1 });
    expect(res).toEqual({ status: 200, body: { type: 1 } });
  });

  it('refuses an unsigned, tampered or stale interaction with 401', async () => {
    const { item: created, components } = await posted();
    const click = componentClick(BOB, components[0]?.custom_id ?? '');
    expect((await discordInteraction(server, discord, orgId, click, { unsigned: true })).status).toBe(401);
    const tampered = await discordInteraction(server, discord, orgId, click, { tamper: true });
    expect(tampered).toEqual({
      status: 401,
      body: { error: 'invalid request signature', code: 'invalid_signature' },
    });
    const stale = await discordInteraction(server, discord, orgId, click, {
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect(stale).toEqual({
      status: 401,
      body: { error: 'request timestamp outside the replay window', code: 'invalid_signature' },
    });
    expect((await item(created.id)).status).toBe('open');
  });

  it('posts the item with its buttons, as a delivery', async () => {
    const { item: created, message, components } = await posted();
    expect(message.route).toBe(`/channels/${CHANNEL}/messages`);
    expect(message.token).toBe(DISCORD_TOKEN);
    expect(components.map((c) => [c.label, c.custom_id])).toEqual([
      ['Yes', `a:${created.id}:0`],
      ['No', `a:${created.id}:1`],
    ]);
    const deliveries = await eventually(
      async () =>
        (
          await owner.get<{ deliveries: { kind: string; url: string }[] }>(
            `/api/deliveries?item_id=${created.id}`,
          )
        ).body.deliveries,
      (list) => list.length > 0,
    );
    expect(deliveries).toEqual([
      expect.objectContaining({ kind: 'discord', url: `${discord.url}/channels/${CHANNEL}/messages` }),
    ]);
  });

  it('offers many choices as a menu', async () => {
    const options = Array.from({ length: 7 }, (_, i) => ({ value: `v${i}`, label: `Option ${i}` }));
    const form = {
      id: 'm',
      fields: [{ id: 'pick', type: 'select', label: 'Pick', required: true, options }],
    };
    const { item: created, components } = await posted(form);
    expect(components).toHaveLength(1);
    expect(components[0]).toMatchObject({ type: 3, custom_id: `s:${created.id}` });
    expect(components[0]?.options).toHaveLength(7);
  });

  it('tells an unlinked user to link, links by the command, then answers as that person once', async () => {
    const { item: created, components } = await posted();
    const yes = components[0]?.custom_id ?? '';
    const unlinked = await discordInteraction(server, discord, orgId, componentClick(BOB, yes));
    expect(unlinked.body).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(JSON.stringify(unlinked.body)).toContain('http://localhost:5173/settings/discord');
    expect((await item(created.id)).status).toBe('open');

    const code = (await owner.post<{ code: string }>('/api/discord/links')).body.code;
    const linked = await discordInteraction(server, discord, orgId, linkCommand(BOB, code));
    expect(linked.body).toMatchObject({
      data: { content: 'Your account is linked: you can answer Beckon items here.' },
    });
    // The code is good once.
    const again = await discordInteraction(server, discord, orgId, linkCommand('334455667788990011', code));
    expect(again.body).toMatchObject({
      data: { content: 'This code is not valid any more: make a new one in Beckon.' },
    });

    const click = componentClick(BOB, yes);
    const answered = await discordInteraction(server, discord, orgId, click);
    expect(answered.body).toMatchObject({ type: 4, data: { content: 'Answered: Yes.', flags: 64 } });
    expect(await item(created.id)).toMatchObject({
      status: 'answered',
      answered_by: { type: 'user', id: ownerId },
      answered_via: 'discord',
    });
    const replay = await discordInteraction(server, discord, orgId, click);
    expect(replay.body).toMatchObject({ data: { content: 'Already handled.' } });

    const update = await discord.waitForMention('PATCH', 'via discord');
    expect(update.route).toMatch(new RegExp(`^/channels/${CHANNEL}/messages/\\d+$`));
    expect(update.body?.components).toEqual([]);
  });

  it('posts an item assigned to a linked person to their DM with the bot too', async () => {
    const assignees = [{ type: 'user', id: ownerId }];
    // Calls of earlier tests mention the same person: only those from here on count.
    const before = discord.calls.length;
    const created =
      // By an agent: the person who creates an item is not notified of it.
      (await agent.post<Item>('/api/items', { title: 'For you', channel_id: opsId, form: YES_NO, assignees }))
        .body;
    const posted = () =>
      discord.calls
        .slice(before)
        .find((c) => c.route === `/channels/7${BOB}/messages` && JSON.stringify(c.body).includes(created.id));
    await vi.waitFor(() => expect(posted()).toBeDefined(), { timeout: 30_000, interval: 25 });
    const dm = discord.calls.slice(before).find((c) => c.route === '/users/@me/channels');
    expect(dm).toMatchObject({ method: 'POST', body: { recipient_id: BOB } });
  });
});
