import type { ItemView } from '@beckon/contracts/items/item.contract';
import { type ListItemsRequest, listedBy } from '@beckon/contracts/items/list-rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

/**
 * The dashboard moves a changed item in and out of its cached lists with `listedBy`
 * (contracts/src/items/list-rules.ts) instead of asking the server again. This binds that
 * pure rule to the SQL of GET /api/items: for a varied set of items and many list requests, the
 * rule must list exactly what the server lists.
 */

type Page = { items: ItemView[]; next_cursor: string | null };
type Status = ItemView['status'];

const HOUR = 3600_000;
const STATUSES: Status[] = ['open', 'answered', 'dismissed', 'archived', 'expired', 'withdrawn'];
const SNOOZES = ['none', 'future', 'past'] as const;
const CHANNELS = [null, 'ops', 'sales'] as const;
const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

let server: TestServer;
let client: HttpClient;
let items: ItemView[] = [];
let opsId: string;

/** One item through the REST API: created, snoozed, moved to `status`, maybe pinned. */
async function makeItem(status: Status, snooze: (typeof SNOOZES)[number], channel: string | null, n: number) {
  const title = `${n % 2 ? 'alpha' : 'beta'} item ${n}`;
  const created = await client.post<ItemView>('/api/items', {
    title,
    form: FORM,
    ...(channel ? { channel } : {}),
  });
  expect(created.status).toBe(201);
  const id = created.body.id;
  const act = async (action: string, body?: unknown) =>
    expect((await client.post(`/api/items/${id}/${action}`, body)).status, `${action} ${title}`).toBe(200);
  // Snoozing is refused on archived items: snooze first.
  if (snooze === 'future') await act('snooze', { until: new Date(Date.now() + 24 * HOUR).toISOString() });
  if (status === 'answered' || (status === 'archived' && n % 2))
    await act('answer', { values: { ok: true } });
  if (status === 'dismissed') await act('dismiss');
  if (status === 'withdrawn') await act('withdraw');
  if (status === 'archived') await act('archive');
  if (n % 3 === 0) await act('pin');
  // What only time produces, written as time would: a deadline that passed, a snooze that ran out.
  if (status === 'expired') await server.database.sql`update items set status = 'expired' where id = ${id}`;
  if (snooze === 'past') {
    await server.database.sql`update items set snoozed_until = now() - interval '1 hour' where id = ${id}`;
  }
  return id;
}

beforeAll(async () => {
  server = await startTestServer();
  const account = await new Factories(server.database.db).account('owner');
  client = server.resource.as(account.token);
  for (const name of ['ops', 'sales']) {
    const channel = await client.post<{ id: string }>('/api/channels', { name, mode: 'open' });
    expect(channel.status).toBe(201);
    if (name === 'ops') opsId = channel.body.id;
  }
  const ids: string[] = [];
  let n = 0;
  for (const status of STATUSES) {
    for (const snooze of SNOOZES) {
      for (const channel of CHANNELS) ids.push(await makeItem(status, snooze, channel, n++));
    }
  }
  // The wire shape, after every change, as the dashboard holds it.
  items = await Promise.all(ids.map(async (id) => (await client.get<ItemView>(`/api/items/${id}`)).body));
});
afterAll(() => server?.close());

/** The request as a REST query string, and as the server reads it before parsing (all text). */
function asQuery(input: ListItemsRequest) {
  const query = new URLSearchParams({ limit: '200' });
  for (const [key, value] of Object.entries(input)) if (value !== undefined) query.set(key, String(value));
  return { query: query.toString(), text: Object.fromEntries(query) as ListItemsRequest };
}

async function listedIds(query: string) {
  const res = await client.get<Page>(`/api/items?${query}`);
  expect(res.status, query).toBe(200);
  expect(res.body.next_cursor, query).toBeNull();
  return res.body.items.map((item) => item.id).sort();
}

/** Every list request the filters can make: status × archived flag × snoozed flag × channel. */
function requests(): ListItemsRequest[] {
  const channelFilters: ListItemsRequest[] = [
    {},
    { channel_id: opsId },
    { channel: 'sales' },
    { channel: 'nowhere' },
  ];
  const flags = [undefined, true, false];
  return [undefined, ...STATUSES].flatMap((status) =>
    flags.flatMap((include_archived) =>
      flags.flatMap((include_snoozed) =>
        channelFilters.map((channel) => ({ status, include_archived, include_snoozed, ...channel })),
      ),
    ),
  );
}

describe('listedBy (the dashboard’s list rule) against GET /api/items', () => {
  it('starts from items in every status, snoozed or not, in and out of channels, pinned or not', () => {
    expect(new Set(items.map((i) => i.status))).toEqual(new Set(STATUSES));
    expect(items.filter((i) => i.pinned).length).toBeGreaterThan(0);
    expect(
      items.filter((i) => i.snoozed_until !== null && Date.parse(i.snoozed_until) < Date.now()),
    ).toHaveLength(18);
    expect(new Set(items.map((i) => i.channel))).toEqual(new Set(CHANNELS));
  });

  it('lists exactly the items the rule lists, for every combination of filters', async () => {
    for (const input of requests()) {
      const { query, text } = asQuery(input);
      const now = Date.now();
      const byRule = items.filter((item) => listedBy(item, input, now)).map((item) => item.id);
      // The REST query's text form ('true', 'false') means the same as the booleans.
      const byRuleFromText = items.filter((item) => listedBy(item, text, now)).map((item) => item.id);
      expect(byRuleFromText, query).toEqual(byRule);
      expect(await listedIds(query), query).toEqual(byRule.sort());
    }
  });

  it('leaves full-text search to the server, whose matches the other filters already admit', async () => {
    let matched = 0;
    for (const base of requests()) {
      const input = { ...base, q: 'alpha' };
      const { query } = asQuery(input);
      const now = Date.now();
      const admitted = items.filter((item) => listedBy(item, base, now));
      const listed = await listedIds(query);
      for (const item of items) {
        expect(listedBy(item, input, now), `${query} ${item.title}`).toBe(
          admitted.includes(item) ? null : false,
        );
      }
      const expected = admitted.filter((item) => item.title.startsWith('alpha')).map((item) => item.id);
      expect(listed, query).toEqual(expected.sort());
      matched += listed.length;
    }
    expect(matched).toBeGreaterThan(0);
  });
});

describe('listedBy for "assigned to me" and "claimed by me"', () => {
  let team: Awaited<ReturnType<Factories['team']>>;
  let people: { id: string; api: HttpClient }[];
  let assigned: ItemView[] = [];

  beforeAll(async () => {
    team = await new Factories(server.database.db).team(server.resource);
    const alice = await team.join('member');
    const bob = await team.join('admin');
    people = [alice, bob];
    const teamId = (await team.owner.post<{ id: string }>('/api/admin/teams', { name: 'T' })).body.id;
    await team.owner.post(`/api/admin/teams/${teamId}/members`, { user_id: alice.id });
    const lists = [
      [],
      [{ type: 'user', id: alice.id }],
      [{ type: 'user', id: bob.id }],
      [{ type: 'team', id: teamId }],
      [{ type: 'role', name: 'admin' }],
      [
        { type: 'user', id: bob.id },
        { type: 'role', name: 'member' },
      ],
    ];
    for (const [n, assignees] of lists.entries()) {
      for (const claimer of [null, alice, bob]) {
        const item = (await team.owner.post<ItemView>('/api/items', { title: `a${n}`, assignees })).body;
        if (claimer) expect((await claimer.api.post(`/api/items/${item.id}/claim`)).status).toBe(200);
        if (n % 2) await team.owner.post(`/api/items/${item.id}/dismiss`);
        assigned.push(item);
      }
    }
    assigned = await Promise.all(
      assigned.map(async (item) => (await team.owner.get<ItemView>(`/api/items/${item.id}`)).body),
    );
  });

  it('agrees with the server wherever it decides, and leaves only team and role assignments to it', async () => {
    const flags = [undefined, true, 'false'] as const;
    for (const person of people) {
      for (const assigned_to_me of flags) {
        for (const claimed_by_me of flags) {
          for (const status of [undefined, 'open'] as const) {
            const input = { assigned_to_me, claimed_by_me, status } as ListItemsRequest;
            const query = new URLSearchParams({ limit: '200' });
            for (const [key, value] of Object.entries(input))
              if (value !== undefined) query.set(key, String(value));
            const page = await person.api.get<Page>(`/api/items?${query}`);
            expect(page.status).toBe(200);
            const listed = new Set(page.body.items.map((item) => item.id));
            const viewer = { type: 'user' as const, id: person.id };
            for (const item of assigned) {
              const rule = listedBy(item, input, Date.now(), viewer);
              if (rule === null) {
                expect(item.assignees.some((a) => a.type !== 'user')).toBe(true);
              } else {
                expect(rule, `${query} ${item.title}`).toBe(listed.has(item.id));
              }
            }
          }
        }
      }
    }
  });
});
