import { Sequencer } from '@beckon/server/realtime/sequencer';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { until } from '../sdk/helpers';

/**
 * Events and audit entries take their place in their organization's order after their change
 * commits (server/src/realtime/sequencer.ts): before the change's answer, or by the worker's
 * sweep when the writer stopped in between.
 */
let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({ worker: true, env: { SEQUENCER_SWEEP_MS: '200' } });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

type Placed = { kind: string; seq: number | null; org_id: string };

/** The organization's events and audit entries with their numbers, in writing order. */
const placesOf = (orgId: string) => server.database.sql<Placed[]>`
  select 'event' as kind, seq::float8 as seq, org_id from events where org_id = ${orgId}
  union all
  select 'audit', seq::float8, org_id from audit_entries where org_id = ${orgId}`;

describe('the sequencer', () => {
  it('has numbered the events and linked the audit entries of a change when the change answers', async () => {
    const [a, b] = [await f.account('owner'), await f.account('owner')];
    const clients = [server.resource.as(a.token), server.resource.as(b.token)];
    // Concurrent changes of two organizations: each numbers its own from 1, without gaps.
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => clients[i % 2]!.post('/api/items', { title: `item ${i}` })),
    );
    for (const account of [a, b]) {
      const placed = await placesOf(account.org.id);
      const numbers = (kind: string) =>
        placed
          .filter((p) => p.kind === kind)
          .map((p) => p.seq)
          .sort((x, y) => (x ?? 0) - (y ?? 0));
      expect(numbers('event')).toEqual([1, 2, 3, 4, 5, 6]);
      expect(numbers('audit')).toEqual([1, 2, 3, 4, 5, 6]);
    }
    const verdict = await clients[0]!.get<{ valid: boolean; head: { seq: number } }>('/api/audit/verify');
    expect(verdict.body).toMatchObject({ valid: true, head: { seq: 6 } });
  });

  it('leaves what a writer that stopped after its commit left to the sweep, which places it', async () => {
    const { org } = await f.account('owner');
    // A writer that committed its change and stopped before running the sequencer.
    await server.database.sql`
      insert into events (id, org_id, type, data) values (${uuidv7()}, ${org.id}, 'item.updated', '{}')`;
    await server.database.sql`
      insert into audit_entries (id, org_id, action, actor_type, content_hash)
      values (${uuidv7()}, ${org.id}, 'item.update', 'system', ${'ab'.repeat(32)})`;
    await until(async () => (await placesOf(org.id)).every((p) => p.seq !== null), 10_000);
    expect((await placesOf(org.id)).map((p) => `${p.kind} ${p.seq}`).sort()).toEqual(['audit 1', 'event 1']);
  });
});

describe('runs of one organization', () => {
  it('take turns, and the changes that wait for a run share the next one', async () => {
    const running = new Map<string, number>();
    let most = { overall: 0, oneOrganization: 0 };
    const runs: string[] = [];
    // A database whose runs take 30 ms: the sequencer's only query.
    const sql = (async (_strings: TemplateStringsArray, orgId: string) => {
      running.set(orgId, (running.get(orgId) ?? 0) + 1);
      const counts = [...running.values()];
      most = {
        overall: Math.max(
          most.overall,
          counts.reduce((a, b) => a + b, 0),
        ),
        oneOrganization: Math.max(most.oneOrganization, ...counts),
      };
      runs.push(orgId);
      await new Promise((resolve) => setTimeout(resolve, 30));
      running.set(orgId, (running.get(orgId) ?? 1) - 1);
      return [];
    }) as never;
    const sequencer = new Sequencer(sql);
    const first = sequencer.settle(['org-a']);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the first run is under way
    await Promise.all([first, ...Array.from({ length: 10 }, () => sequencer.settle(['org-a', 'org-b']))]);
    // org-a: the run under way, then one for the ten that came during it; org-b: one.
    expect(runs.filter((org) => org === 'org-a')).toHaveLength(2);
    expect(runs.filter((org) => org === 'org-b')).toHaveLength(1);
    // Organizations run side by side; one organization never twice at once.
    expect(most).toEqual({ overall: 2, oneOrganization: 1 });
  });
});
