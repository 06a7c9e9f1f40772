import type { ItemView } from '@beckon/contracts/items/item.contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, mcpRequest, startTestServer, type TestServer } from '../harness';

type Person = { id: string; api: HttpClient };
type Page = { items: ItemView[] };

let server: TestServer;
let f: Factories;
let orgId: string;
let owner: Person;
let alice: Person;
let bob: Person;
let carol: Person;
let viewer: Person;
let teamId: string;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
  const org = await f.team(server.resource);
  orgId = org.org.id;
  owner = { id: org.user.id, api: org.owner };
  alice = await org.join('member');
  bob = await org.join('member');
  carol = await org.join('admin');
  viewer = await org.join('viewer');
  const team = await owner.api.post<{ id: string }>('/api/admin/teams', { name: 'On call' });
  expect(team.status).toBe(201);
  teamId = team.body.id;
  expect((await owner.api.post(`/api/admin/teams/${teamId}/members`, { user_id: bob.id })).status).toBe(201);
  // Every person has a phone, so the push entries written show who an item reaches.
  for (const person of [owner, alice, bob, carol, viewer]) {
    const device = await person.api.post('/api/push/register', {
      device_token: `phone-${person.id}`,
      platform: 'mobile',
    });
    expect(device.status).toBeLessThan(300);
  }
});
afterAll(() => server?.close());

const create = (api: HttpClient, body: Record<string, unknown>) => api.post<ItemView>('/api/items', body);

/** Who an item's pushes went to, and what they said. */
const pushes = async (itemId: string) =>
  (
    await server.database.sql<{ user_id: string; title: string }[]>`
      select user_id, payload->>'title' as title from push_queue where item_id = ${itemId} order by user_id`
  ).map((row) => ({ user: row.user_id, title: row.title }));

const ids = (page: Page) => page.items.map((item) => item.id);

describe('assignees', () => {
  it('names users, teams and roles of the organization; pushes go to them; everyone still sees it', async () => {
    const assignees = [
      { type: 'user', id: alice.id },
      { type: 'team', id: teamId },
      { type: 'role', name: 'admin' },
    ];
    const created = await create(owner.api, { title: 'Approve the budget', assignees });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      assignees,
      claimed_by: null,
      claimed_at: null,
      escalation: [],
      escalation_step: 0,
      next_escalation_at: null,
    });
    // Alice (named), Bob (the team), Carol (admin); not the viewer, not the creator.
    expect((await pushes(created.body.id)).map((p) => p.user).sort()).toEqual(
      [alice.id, bob.id, carol.id].sort(),
    );
    const seen = await viewer.api.get<ItemView>(`/api/items/${created.body.id}`);
    expect(seen.status).toBe(200);
    expect(seen.body.assignees).toEqual(assignees);
  });

  it('names each one once, whatever else they are on the item: in the answer, the item and the list', async () => {
    const form = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };
    const res = await create(alice.api, {
      title: 'Rotate the keys?',
      form,
      assignees: [
        { type: 'user', id: alice.id },
        { type: 'team', id: teamId },
      ],
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.names).sort()).toEqual([alice.id, teamId].sort());
    expect(res.body.names[teamId]).toBe('On call');
    const answered = await alice.api.post<ItemView>(`/api/items/${res.body.id}/answer`, {
      values: { ok: true },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.answered_by).toEqual({ type: 'user', id: alice.id });
    for (const item of [
      answered.body,
      (await alice.api.get<ItemView>(`/api/items/${res.body.id}`)).body,
      (await alice.api.get<Page>('/api/items?assigned_to_me=true')).body.items.find(
        (i) => i.id === res.body.id,
      ),
    ])
      expect(item?.names).toEqual({ [alice.id]: res.body.names[alice.id], [teamId]: 'On call' });
  });

  it('pushes to everyone who may read items but the creator when nobody is named', async () => {
    const created = await create(owner.api, { title: 'For everyone' });
    expect((await pushes(created.body.id)).map((p) => p.user).sort()).toEqual(
      [alice.id, bob.id, carol.id, viewer.id].sort(),
    );
  });

  it('refuses ids of other organizations, unknown roles, duplicates and too many (400 naming each)', async () => {
    const stranger = await f.account('owner');
    const foreignTeam = await server.resource
      .as(stranger.token)
      .post<{ id: string }>('/api/admin/teams', { name: 'Theirs' });
    const bad = await create(owner.api, {
      title: 'x',
      assignees: [
        { type: 'user', id: stranger.user.id },
        { type: 'team', id: foreignTeam.body.id },
        { type: 'role', name: 'nobody' },
        { type: 'user', id: alice.id },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { 'assignees.0': 'unknown user', 'assignees.1': 'unknown team', 'assignees.2': 'unknown role' },
    });
    const twice = await create(owner.api, {
      title: 'x',
      assignees: [
        { type: 'user', id: alice.id },
        { type: 'user', id: alice.id },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ fields: { assignees: 'listed twice' } });
    const many = Array.from({ length: 21 }, (_, i) => ({ type: 'role', name: `r${i}` }));
    expect((await create(owner.api, { title: 'x', assignees: many })).status).toBe(400);
    const shape = await create(owner.api, { title: 'x', assignees: [{ type: 'group', id: alice.id }] });
    expect(shape.status).toBe(400);
    // A foreign item cannot be assigned: 404 as for any foreign id.
    const theirs = await create(server.resource.as(stranger.token), { title: 'theirs' });
    const foreign = await owner.api.post(`/api/items/${theirs.body.id}/assign`, { assignees: [] });
    expect(foreign.status).toBe(404);
  });

  it('reassigns: the new assignees replace the old, only the people added are notified, audited', async () => {
    const item = (
      await create(owner.api, { title: 'Reassign me', assignees: [{ type: 'user', id: alice.id }] })
    ).body;
    const assigned = await alice.api.post<ItemView>(`/api/items/${item.id}/assign`, {
      assignees: [
        { type: 'user', id: alice.id },
        { type: 'team', id: teamId },
        { type: 'user', id: carol.id },
      ],
    });
    expect(assigned.status).toBe(200);
    expect(assigned.body.assignees).toHaveLength(3);
    // Alice was pushed at creation; the assignment adds Bob (the team) and Carol.
    expect(await pushes(item.id)).toEqual(
      [
        { user: alice.id, title: 'Reassign me' },
        { user: bob.id, title: 'Assigned to you: Reassign me' },
        { user: carol.id, title: 'Assigned to you: Reassign me' },
      ].sort((a, b) => a.user.localeCompare(b.user)),
    );
    // The same list again changes nothing and records nothing.
    const again = await alice.api.post<ItemView>(`/api/items/${item.id}/assign`, {
      assignees: assigned.body.assignees,
    });
    expect(again.status).toBe(200);
    const timeline = await owner.api.get<
      { action: string; actor_id: string; data: Record<string, unknown> }[]
    >(`/api/items/${item.id}/timeline`);
    const assigns = timeline.body.filter((entry) => entry.action === 'item.assign');
    expect(assigns).toHaveLength(1);
    expect(assigns[0]).toMatchObject({
      actor_id: alice.id,
      data: { previous: [{ type: 'user', id: alice.id }] },
    });
    expect((await viewer.api.post(`/api/items/${item.id}/assign`, { assignees: [] })).status).toBe(403);
  });

  it('lists "assigned to me" (by name, team or role) for each person', async () => {
    const toAlice = (await create(owner.api, { title: 'a', assignees: [{ type: 'user', id: alice.id }] }))
      .body;
    const toTeam = (await create(owner.api, { title: 't', assignees: [{ type: 'team', id: teamId }] })).body;
    const toAdmins = (await create(owner.api, { title: 'r', assignees: [{ type: 'role', name: 'admin' }] }))
      .body;
    const mine = async (person: Person) =>
      ids((await person.api.get<Page>('/api/items?assigned_to_me=true&limit=200')).body);
    expect(await mine(alice)).toContain(toAlice.id);
    expect(await mine(alice)).not.toContain(toTeam.id);
    expect(await mine(bob)).toContain(toTeam.id);
    expect(await mine(bob)).not.toContain(toAlice.id);
    expect(await mine(carol)).toEqual(expect.arrayContaining([toAdmins.id]));
    expect(await mine(carol)).not.toContain(toTeam.id);
    expect(await mine(viewer)).toEqual([]);
    // Everyone's list still holds them all.
    const all = ids((await viewer.api.get<Page>('/api/items?limit=200')).body);
    expect(all).toEqual(expect.arrayContaining([toAlice.id, toTeam.id, toAdmins.id]));
  });
});

describe('assignment in templates', () => {
  it('fills assignees from a template, and refuses a template naming a foreign assignee', async () => {
    const saved = await owner.api.post('/api/templates', {
      name: 'budget',
      fields: { title: 'Budget', assignees: [{ type: 'team', id: teamId }] },
    });
    expect(saved.status).toBe(200);
    const item = await create(owner.api, { template: 'budget' });
    expect(item.body.assignees).toEqual([{ type: 'team', id: teamId }]);
    const bad = await owner.api.post('/api/templates', {
      name: 'bad',
      fields: { assignees: [{ type: 'user', id: '0190a0a0-0000-7000-8000-000000000000' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ fields: { 'fields.assignees.0': 'unknown user' } });
  });
});

describe('assignment over MCP', () => {
  const callTool = async (token: string, name: string, args: Record<string, unknown>) =>
    (
      await mcpRequest<{ content: { text: string }[]; isError?: boolean }>(
        server.resource.baseUrl,
        token,
        'tools/call',
        {
          name,
          arguments: args,
        },
      )
    ).body;

  it('takes assignees and an escalation policy as service.ask arguments, checked as over REST', async () => {
    const key = await f.apiKey(orgId, owner.id);
    const asked = await callTool(key.token, 'service.ask', {
      title: 'Approve the refund?',
      form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] },
      assignees: [{ type: 'team', id: teamId }],
      escalation: [{ after: 'PT1H', action: 'escalate', to: [{ type: 'role', name: 'admin' }] }],
    });
    const item = JSON.parse(asked.result!.content[0]!.text) as ItemView;
    expect(item.assignees).toEqual([{ type: 'team', id: teamId }]);
    expect(item.next_escalation_at).toBe(new Date(Date.parse(item.created_at) + 3600_000).toISOString());
    expect((await pushes(item.id)).map((p) => p.user)).toEqual([bob.id]);
    const refused = await callTool(key.token, 'service.notify', {
      title: 'x',
      assignees: [{ type: 'team', id: '0190a0a0-0000-7000-8000-000000000000' }],
    });
    // Invalid arguments are a tool result the model reads (isError), naming the field.
    expect(refused.error).toBeUndefined();
    expect(refused.result).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments:\n- assignees.0: unknown team' }],
      isError: true,
    });
  });

  it("lists what is assigned to the caller's person with service.list (an agent is never assigned)", async () => {
    // A person's MCP client (their own token) and an agent's key.
    const person = await f.session(owner.id, orgId);
    const key = await f.apiKey(orgId, owner.id);
    const notify = async (args: Record<string, unknown>) =>
      JSON.parse((await callTool(key.token, 'service.notify', args)).result!.content[0]!.text) as ItemView;
    const mine = await notify({ title: 'For the owner', assignees: [{ type: 'user', id: owner.id }] });
    const theirs = await notify({ title: 'For the team', assignees: [{ type: 'team', id: teamId }] });
    const assignedTo = async (token: string) => {
      const listed = await callTool(token, 'service.list', { assigned_to_me: true, limit: 200 });
      return (JSON.parse(listed.result!.content[0]!.text) as { items: ItemView[] }).items.map((i) => i.id);
    };
    const ids = await assignedTo(person.token);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    expect(await assignedTo(key.token)).toEqual([]);
  });
});
