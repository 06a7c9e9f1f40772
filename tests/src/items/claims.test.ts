import type { ItemView } from '@beckon/contracts/items/item.contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Person = { id: string; api: HttpClient };
type Page = { items: ItemView[] };

let server: TestServer;
let owner: Person;
let alice: Person;
let bob: Person;
let carol: Person;
let viewer: Person;

beforeAll(async () => {
  server = await startTestServer();
  const org = await new Factories(server.database.db).team(server.resource);
  owner = { id: org.user.id, api: org.owner };
  alice = await org.join('member');
  bob = await org.join('member');
  carol = await org.join('admin');
  viewer = await org.join('viewer');
});
afterAll(() => server?.close());

const create = (api: HttpClient, body: Record<string, unknown>) => api.post<ItemView>('/api/items', body);
const ids = (page: Page) => page.items.map((item) => item.id);

describe('claims', () => {
  it('claims an open item for everyone to see; the holder may release it, others get a 409', async () => {
    const item = (await create(owner.api, { title: 'Claim me' })).body;
    const claimed = await alice.api.post<ItemView>(`/api/items/${item.id}/claim`);
    expect(claimed.status).toBe(200);
    expect(claimed.body.claimed_by).toEqual({ type: 'user', id: alice.id });
    expect(claimed.body.claimed_at).not.toBeNull();
    expect((await viewer.api.get<ItemView>(`/api/items/${item.id}`)).body.claimed_by).toEqual({
      type: 'user',
      id: alice.id,
    });
    const taken = await bob.api.post(`/api/items/${item.id}/claim`);
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      error: 'item is claimed by someone else',
      code: 'claimed',
      claimed_by: { type: 'user', id: alice.id },
    });
    // Claiming one's own claim again changes nothing.
    const again = await alice.api.post<ItemView>(`/api/items/${item.id}/claim`);
    expect(again.body.claimed_at).toBe(claimed.body.claimed_at);
    // Someone else's claim: refused to a member, allowed to an admin (org.manage).
    const refused = await bob.api.post(`/api/items/${item.id}/unclaim`);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.manage',
    });
    const released = await carol.api.post<ItemView>(`/api/items/${item.id}/unclaim`);
    expect(released.status).toBe(200);
    expect(released.body.claimed_by).toBeNull();
    // The holder releases their own.
    await bob.api.post(`/api/items/${item.id}/claim`);
    expect((await bob.api.post<ItemView>(`/api/items/${item.id}/unclaim`)).body.claimed_by).toBeNull();
    const actions = (
      await owner.api.get<{ action: string; actor_id: string }[]>(`/api/items/${item.id}/timeline`)
    ).body
      .filter((entry) => entry.action.endsWith('claim'))
      .map((entry) => [entry.action, entry.actor_id]);
    expect(actions).toEqual([
      ['item.claim', alice.id],
      ['item.unclaim', carol.id],
      ['item.claim', bob.id],
      ['item.unclaim', bob.id],
    ]);
  });

  it('refuses to claim an item that is not open (409 with its status)', async () => {
    const item = (await create(owner.api, { title: 'Gone' })).body;
    await owner.api.post(`/api/items/${item.id}/dismiss`);
    const claim = await alice.api.post(`/api/items/${item.id}/claim`);
    expect(claim.status).toBe(409);
    expect(claim.body).toEqual({
      error: 'cannot claim an item that is dismissed',
      code: 'invalid_status',
      status: 'dismissed',
    });
    expect((await viewer.api.post(`/api/items/${item.id}/claim`)).status).toBe(403);
  });

  it('lets exactly one of many concurrent claims win', async () => {
    const people = [alice, bob, carol, owner];
    for (let round = 0; round < 5; round++) {
      const item = (await create(owner.api, { title: `race ${round}` })).body;
      const answers = await Promise.all(
        people.map((p) => p.api.post<ItemView>(`/api/items/${item.id}/claim`)),
      );
      const winners = answers.flatMap((answer, i) => (answer.status === 200 ? [people[i]!.id] : []));
      expect(winners).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(people.length - 1);
      const stored = (await owner.api.get<ItemView>(`/api/items/${item.id}`)).body;
      expect(stored.claimed_by).toEqual({ type: 'user', id: winners[0] });
      const [audit] = await server.database.sql<{ n: number }[]>`
        select count(*)::int as n from audit_entries where item_id = ${item.id} and action = 'item.claim'`;
      expect(audit!.n).toBe(1);
    }
  });

  it('lists "claimed by me"', async () => {
    const item = (await create(owner.api, { title: 'Mine' })).body;
    await bob.api.post(`/api/items/${item.id}/claim`);
    const claimed = async (person: Person) =>
      ids((await person.api.get<Page>('/api/items?claimed_by_me=true&limit=200')).body);
    expect(await claimed(bob)).toContain(item.id);
    expect(await claimed(alice)).not.toContain(item.id);
  });
});
