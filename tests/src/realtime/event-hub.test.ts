import { randomUUID } from 'node:crypto';
import { createDb } from '@beckon/db';
import { EVENTS_CHANNEL, EventHub } from '@beckon/server/realtime/event-hub';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, Factories, type TestDatabase } from '../harness';
import { until } from '../sdk/helpers';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

it('ends the streams of an organization whose notified event could not be read, never skips it', async () => {
  // The hub's own pool, to be closed under it: a database gone between NOTIFY and the read.
  const pool = createDb(database.url, { max: 1, applicationName: 'beckon-test' });
  const hub = new EventHub(pool.sql);
  await hub.listen(database.url);
  const orgId = (await new Factories(database.db).org()).id;
  let lost = 0;
  const received: Array<{ id: string }> = [];
  hub.subscribe(orgId, { event: (event) => received.push(event), lost: () => lost++ });
  try {
    // Events that are not there (pruned, say) are passed over: nothing was missed. Reads go in
    // notification order, so once the real event after them arrives, they have been passed over.
    await database.sql`select pg_notify(${EVENTS_CHANNEL}, ${`${orgId}:1000:1001`})`;
    const real = randomUUID();
    await database.sql`insert into events (id, org_id, type, data) values (${real}, ${orgId}, 'item.created', '{}')`;
    // The sequencer's run numbers it (1) and announces `<org>:1:1`.
    await database.sql`select beckon_sequence(${orgId}, repeat('0', 64))`;
    await until(() => received.length === 1);
    expect(received.map((event) => event.id)).toEqual([real]);
    expect(lost).toBe(0);

    await pool.end();
    await database.sql`select pg_notify(${EVENTS_CHANNEL}, ${`${orgId}:2:2`})`;
    await until(() => lost === 1);
    expect(received).toHaveLength(1);
  } finally {
    await hub.close();
  }
});
