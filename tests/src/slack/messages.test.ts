// Longer than 300 lines: the Slack message tests share one connected workspace, its routes and its linked people, which are slow to set up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Factories, FakeSlack, HttpClient, TestServer } from '../harness';
import {
  buttons,
  click,
  connect,
  eventually,
  type Item,
  interact,
  linkSlack,
  onPlan,
  startSlackServer,
} from './setup';

let server: TestServer;
let fake: FakeSlack;
let f: Factories;
let owner: HttpClient;
let ownerId: string;
let orgId: string;
let opsId: string;
let join: Awaited<ReturnType<Factories['team']>>['join'];

const TEAM = {
  id: 'TMSG',
  name: 'Messages',
  channels: { COPS: 'ops', CQUIET: 'quiet' },
  users: { UALICE: 'alice', UVIEWER: 'vic', UBOB: 'bob' },
};
const YES_NO = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };
const RICH = {
  id: 'g',
  fields: [
    { id: 'reason', type: 'text', label: 'Why?', required: true },
    {
      id: 'size',
      type: 'select',
      label: 'Size',
      options: [
        { value: 's', label: 'Small' },
        { value: 'l', label: 'Large' },
      ],
    },
  ],
};

beforeAll(async () => {
  ({ server, fake, f } = await startSlackServer());
  const team = await f.team(server.resource);
  await onPlan(server, team.org.id, 'team');
  owner = team.owner;
  ownerId = team.user.id;
  orgId = team.org.id;
  join = team.join;
  await connect(server, fake, owner, TEAM);
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
  await owner.put(`/api/slack/routes/${opsId}`, { slack_channel_id: 'COPS' });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

/** Creates an item in the routed channel and waits for its Slack message. */
async function posted(form: object | undefined = YES_NO) {
  const item = (await owner.post<Item>('/api/items', { title: 'Deploy v2?', channel_id: opsId, form })).body;
  const message = await fake.waitForMention('chat.postMessage', item.id);
  return { item, message, buttons: buttons(message.params.blocks) };
}

const waitForUpdate = (itemId: string) => fake.waitForMention('chat.update', itemId);

type Delivery = { kind: string; error: string | null; url: string; attempt: number };
const deliveriesOf = (itemId: string) =>
  eventually(
    async () =>
      (await owner.get<{ deliveries: Delivery[] }>(`/api/deliveries?item_id=${itemId}`)).body.deliveries,
    (list) => list.length > 0,
  );

const item = async (id: string) => (await owner.get<Item>(`/api/items/${id}`)).body;
const ephemeralsTo = (user: string) => fake.of('chat.postEphemeral').filter((c) => c.params.user === user);

describe('items become Slack messages', () => {
  it("posts a routed channel's new item with the form's buttons, as a delivery", async () => {
    const { item: created, message, buttons: found } = await posted();
    expect(message.params.channel).toBe('COPS');
    expect(message.token).toMatch(/^xoxb-TMSG-/);
    expect(Object.keys(found)).toEqual(['Yes', 'No', 'Open in Beckon']);
    const deliveries = await deliveriesOf(created.id);
    expect(deliveries).toEqual([
      expect.objectContaining({ kind: 'slack', error: null, url: `${fake.url}chat.postMessage`, attempt: 1 }),
    ]);
  });

  it('records a failed post in the delivery log', async () => {
    fake.failNext('chat.postMessage', 'not_in_channel');
    const created = (await owner.post<Item>('/api/items', { title: 'Lost', channel_id: opsId, form: YES_NO }))
      .body;
    await fake.waitForMention('chat.postMessage', created.id);
    const [failed] = await deliveriesOf(created.id);
    const error = failed?.error;
    expect(error).toBe('not_in_channel');
  });
});

describe('interactions', () => {
  it('refuses a bad signature and a stale timestamp with 401', async () => {
    const { item: created, buttons: found } = await posted();
    const payload = click(TEAM.id, 'UALICE', 'COPS', found.Yes!);
    expect((await interact(server, payload, { secret: 'not-the-secret' })).status).toBe(401);
    expect((await interact(server, payload, { tamper: true })).status).toBe(401);
    const stale = await interact(server, payload, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });
    expect(stale).toEqual({
      status: 401,
      body: { error: 'request timestamp outside the replay window', code: 'invalid_signature' },
    });
    expect((await item(created.id)).status).toBe('open');
  });

  it('asks an unlinked Slack user to link their account, then answers as that person once', async () => {
    const { item: created, buttons: found } = await posted();
    const first = await interact(server, click(TEAM.id, 'UALICE', 'COPS', found.Yes!));
    expect(first.status).toBe(200);
    expect((await item(created.id)).status).toBe('open');
    const [ask] = ephemeralsTo('UALICE');
    expect(ask?.params.channel).toBe('COPS');
    // The page starts Sign in with Slack: the link carries nothing that names a Slack user.
    expect(String(ask?.params.text)).toContain('<http://localhost:5173/slack/link|link your account>');
    const linked = await linkSlack(server, fake, owner, TEAM.id, 'UALICE');
    expect(linked.location).toBe('http://localhost:5173/slack/link?linked=1');
    const links = await server.database.sql`
      select slack_user_id, user_id from slack_user_links where org_id = ${orgId} and user_id = ${ownerId}`;
    expect(links).toEqual([{ slack_user_id: 'UALICE', user_id: ownerId }]);

    const answer = await interact(server, click(TEAM.id, 'UALICE', 'COPS', found.Yes!));
    expect(answer.status).toBe(200);
    const answered = await item(created.id);
    expect(answered).toMatchObject({
      status: 'answered',
      response: { ok: true },
      answered_by: { type: 'user', id: ownerId },
      answered_via: 'slack',
    });
    const update = await waitForUpdate(created.id);
    expect(Object.keys(buttons(update.params.blocks))).toEqual(['Open in Beckon']);
    expect(JSON.stringify(update.params.blocks)).toContain('Answered by');

    // A second click (the message was still on someone's screen) changes nothing and says so.
    const again = await interact(server, click(TEAM.id, 'UALICE', 'COPS', found.No!));
    expect(again.status).toBe(200);
    expect(String(ephemeralsTo('UALICE').at(-1)?.params.text)).toContain('already decided (answered)');
    expect((await item(created.id)).response).toEqual({ ok: true });
    const [audit] = await server.database.sql<{ n: number; via: string }[]>`
      select count(*)::int as n, min(data->>'answered_via') as via
        from audit_entries where item_id = ${created.id} and action = 'item.answer'`;
    expect(audit).toEqual({ n: 1, via: 'slack' });
  });

  it("answers with the linked person's role: a viewer is told they may not answer", async () => {
    const viewer = await join('viewer');
    const { item: created, buttons: found } = await posted();
    await interact(server, click(TEAM.id, 'UVIEWER', 'COPS', found.Yes!));
    expect(String(ephemeralsTo('UVIEWER').at(-1)?.params.text)).toContain('link your account');
    expect((await linkSlack(server, fake, viewer.api, TEAM.id, 'UVIEWER')).location).toContain('linked=1');
    await interact(server, click(TEAM.id, 'UVIEWER', 'COPS', found.Yes!));
    expect(String(ephemeralsTo('UVIEWER').at(-1)?.params.text)).toBe(
      'Your Beckon role may not answer items.',
    );
    expect((await item(created.id)).status).toBe('open');
  });

  it('acknowledges an item without a form', async () => {
    const created = (
      await owner.post<Item & { acked_at: string | null }>('/api/items', { title: 'FYI', channel_id: opsId })
    ).body;
    const message = await fake.waitForMention('chat.postMessage', created.id);
    const found = buttons(message.params.blocks);
    expect(Object.keys(found)).toEqual(['Acknowledge', 'Open in Beckon']);
    // UALICE linked her account in the test above.
    expect((await interact(server, click(TEAM.id, 'UALICE', 'COPS', found.Acknowledge!))).status).toBe(200);
    const acked = (await owner.get<{ acked_at: string | null; status: string }>(`/api/items/${created.id}`))
      .body;
    expect(acked).toMatchObject({ status: 'open', acked_at: expect.any(String) });
    const update = await waitForUpdate(created.id);
    expect(Object.keys(buttons(update.params.blocks))).toEqual(['Open in Beckon']);
    expect(JSON.stringify(update.params.blocks)).toContain('Acknowledged');
  });

  it('updates the message after an answer in the dashboard', async () => {
    const { item: created, message } = await posted();
    expect((await owner.post(`/api/items/${created.id}/answer`, { values: { ok: false } })).status).toBe(200);
    const update = await waitForUpdate(created.id);
    const [saved] = await server.database.sql<{ ts: string }[]>`
      select ts from slack_messages where item_id = ${created.id} and slack_channel_id = ${String(message.params.channel)}`;
    expect(update.params).toMatchObject({ channel: 'COPS', ts: saved?.ts });
    expect(Object.keys(buttons(update.params.blocks))).toEqual(['Open in Beckon']);
    expect(JSON.stringify(update.params.blocks)).toContain('No');
  });

  it('answers a richer form through a modal', async () => {
    const { item: created, buttons: found } = await posted(RICH);
    expect(Object.keys(found)).toEqual(['Answer…', 'Open in Beckon']);
    const opened = fake.of('views.open').length;
    expect((await interact(server, click(TEAM.id, 'UALICE', 'COPS', found['Answer…']!))).status).toBe(200);
    const [open] = (await fake.waitFor('views.open', opened + 1)).slice(-1);
    const view = open?.params.view as { private_metadata: string; blocks: { block_id: string }[] };
    expect(view.private_metadata).toBe(created.id);
    expect(view.blocks.map((b) => b.block_id)).toEqual(['reason', 'size']);

    const submit = (values: object) => ({
      type: 'view_submission',
      team: { id: TEAM.id },
      user: { id: 'UALICE', team_id: TEAM.id },
      view: { callback_id: 'beckon.modal', private_metadata: created.id, state: { values } },
    });
    const missing = await interact(server, submit({ size: { value: { selected_option: { value: '0' } } } }));
    expect(missing.body).toEqual({ response_action: 'errors', errors: { reason: 'required' } });
    const done = await interact(
      server,
      submit({
        reason: { value: { value: 'tested' } },
        size: { value: { selected_option: { value: '1' } } },
      }),
    );
    expect(done).toEqual({ status: 200, body: null });
    expect(await item(created.id)).toMatchObject({
      response: { reason: 'tested', size: 'l' },
      answered_via: 'slack',
    });
  });
});

describe('organizations connecting later', () => {
  it('post from the first item after connecting (the processes learn it before the redirect)', async () => {
    const late = await f.team(server.resource);
    await onPlan(server, late.org.id, 'team');
    const ops = (await late.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body
      .id;
    // An item before: the resource process now remembers that this organization has no Slack.
    expect((await late.owner.post('/api/items', { title: 'Before', channel_id: ops })).status).toBe(201);
    await connect(server, fake, late.owner, { id: 'TLATER', name: 'Later', channels: { CLATER: 'ops' } });
    await late.owner.put(`/api/slack/routes/${ops}`, { slack_channel_id: 'CLATER' });
    const after = (await late.owner.post<Item>('/api/items', { title: 'After', channel_id: ops })).body;
    const message = await fake.waitForMention('chat.postMessage', after.id);
    expect(message.params.channel).toBe('CLATER');
  });
});

describe('routes to people', () => {
  it("posts to a person's DM with the app, and updates it there", async () => {
    const dm = (await owner.post<{ id: string }>('/api/channels', { name: 'to-alice', mode: 'open' })).body
      .id;
    const routed = await owner.put(`/api/slack/routes/${dm}`, { slack_channel_id: 'UALICE' });
    expect(routed.body).toMatchObject({ slack_channel_id: 'UALICE', slack_channel_name: '@alice' });
    expect((await owner.put(`/api/slack/routes/${dm}`, { slack_channel_id: 'UNOBODY' })).status).toBe(400);
    // UALICE linked her account in the interactions above: she is offered as a person.
    const targets = await owner.get<{ id: string; kind: string }[]>('/api/slack/channels');
    expect(targets.body).toContainEqual(expect.objectContaining({ id: 'UALICE', kind: 'person' }));

    const created = (
      await owner.post<Item>('/api/items', { title: 'Just you', channel_id: dm, form: YES_NO })
    ).body;
    const message = await fake.waitForMention('chat.postMessage', created.id);
    expect(message.params.channel).toBe('UALICE');
    await owner.post(`/api/items/${created.id}/answer`, { values: { ok: true } });
    const update = await waitForUpdate(created.id);
    expect(update.params.channel).toBe('DUALICE');
  });
});

describe('routing by assignee', () => {
  it('posts to the DM of each assignee who linked Slack, once each, beside the channel route', async () => {
    const bob = await join('member');
    const carol = await join('member'); // never linked Slack
    await server.database.sql`
      insert into slack_user_links (org_id, slack_user_id, user_id) values (${orgId}, 'UBOB', ${bob.id})`;
    const oncall = (await owner.post<{ id: string }>('/api/admin/teams', { name: `on-call-${bob.id}` })).body
      .id;
    await owner.post(`/api/admin/teams/${oncall}/members`, { user_id: bob.id });
    // Bob twice (himself and his team), Carol unlinked, in the channel routed to #ops.
    const assignees = [
      { type: 'user', id: bob.id },
      { type: 'team', id: oncall },
      { type: 'user', id: carol.id },
    ];
    const created = (
      await owner.post<Item>('/api/items', { title: 'Rotate?', channel_id: opsId, form: YES_NO, assignees })
    ).body;
    const postsOf = () =>
      fake.of('chat.postMessage').filter((c) => JSON.stringify(c.params).includes(created.id));
    await eventually(
      async () => postsOf(),
      (posts) => posts.length >= 2,
    );
    await eventually(
      async () => (await server.database.sql`select count(*)::int as n from graphile_worker.jobs`)[0]!.n,
      (n) => n === 0,
    );
    expect(
      postsOf()
        .map((c) => c.params.channel)
        .sort(),
    ).toEqual(['COPS', 'UBOB']);

    await owner.post(`/api/items/${created.id}/answer`, { values: { ok: true } });
    const updated = await eventually(
      async () => fake.of('chat.update').filter((c) => JSON.stringify(c.params).includes(created.id)),
      (updates) => updates.length >= 2,
    );
    expect(updated.map((c) => c.params.channel).sort()).toEqual(['COPS', 'DUBOB']);
  });
});

describe('approvals from Slack', () => {
  it('tells a person their approval is counted, and refuses their second answer', async () => {
    const dave = await join('member');
    await server.database.sql`
      insert into slack_user_links (org_id, slack_user_id, user_id) values (${orgId}, 'UDAVE', ${dave.id})`;
    const created = (
      await owner.post<Item>('/api/items', {
        title: 'Two approvals?',
        channel_id: opsId,
        form: YES_NO,
        approvals: { required: 2 },
      })
    ).body;
    const found = buttons((await fake.waitForMention('chat.postMessage', created.id)).params.blocks);
    expect((await interact(server, click(TEAM.id, 'UDAVE', 'COPS', found.Yes!))).status).toBe(200);
    expect(ephemeralsTo('UDAVE').map((c) => c.params.text)).toEqual([
      'Your answer is recorded. It needs 2 approvals: 1 so far.',
    ]);
    expect((await item(created.id)).status).toBe('open');
    // A linked Slack user is a person: counted as Dave on an item that does not allow agents.
    const [approved] = await server.database.sql<{ actor_id: string; data: Record<string, unknown> }[]>`
      select actor_id, data from audit_entries where item_id = ${created.id} and action = 'item.approve'`;
    expect(approved).toEqual({ actor_id: dave.id, data: { answered_via: 'slack' } });
    expect((await interact(server, click(TEAM.id, 'UDAVE', 'COPS', found.No!))).status).toBe(200);
    expect(ephemeralsTo('UDAVE').at(-1)?.params.text).toBe(
      'You have already answered this item: nothing changed.',
    );
    expect((await item(created.id)).status).toBe('open');
  });
});

describe('an answer by the timeout policy', () => {
  it("is the policy's in the updated message, never a person's", async () => {
    const created = (
      await owner.post<Item>('/api/items', {
        title: 'Rotate keys?',
        channel_id: opsId,
        form: YES_NO,
        deadline_at: new Date(Date.now() + 1000).toISOString(),
        on_timeout: { action: 'answer', values: { ok: false } },
      })
    ).body;
    await fake.waitForMention('chat.postMessage', created.id);
    const update = await waitForUpdate(created.id);
    expect(JSON.stringify(update.params.blocks)).toContain('Answered by the timeout policy');
  });
});

describe('isolation', () => {
  it("never lets one organization's Slack reach another's items or people", async () => {
    const other = await f.team(server.resource);
    await onPlan(server, other.org.id, 'team');
    await connect(server, fake, other.owner, { id: 'TOTHER', name: 'Other', channels: { COTHER: 'ops' } });
    const otherOps = (await other.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' }))
      .body.id;
    await other.owner.put(`/api/slack/routes/${otherOps}`, { slack_channel_id: 'COTHER' });

    // The other organization's items go to its own workspace only, with its own token.
    const theirs = (
      await other.owner.post<Item>('/api/items', { title: 'Theirs', channel_id: otherOps, form: YES_NO })
    ).body;
    const message = await fake.waitForMention('chat.postMessage', theirs.id);
    expect(message.params.channel).toBe('COTHER');
    expect(message.token).toMatch(/^xoxb-TOTHER-/);

    // A person of the other workspace, linked there, clicking a button of this organization's item
    // (a forged or replayed payload): nothing happens, nobody is told anything.
    const ask = await interact(
      server,
      click('TOTHER', 'UBOB', 'COTHER', { action_id: 'beckon.ack', value: theirs.id }),
    );
    expect(ask.status).toBe(200);
    expect((await linkSlack(server, fake, other.owner, 'TOTHER', 'UBOB')).location).toContain('linked=1');
    const { item: ours, buttons: found } = await posted();
    const before = fake.of('chat.postEphemeral').length;
    const forged = await interact(server, click('TOTHER', 'UBOB', 'COTHER', found.Yes!));
    expect(forged.status).toBe(200);
    expect((await item(ours.id)).status).toBe('open');
    expect(fake.of('chat.postEphemeral').length).toBe(before);

    // Signing in with Slack as a user of the other workspace does not link anyone here.
    expect((await linkSlack(server, fake, owner, 'TOTHER', 'UBOB')).location).toBe(
      'http://localhost:5173/slack/link?error=other_workspace',
    );
  });
});
