import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResourceProcess, spawnResource } from '../faults/own-processes';
import { createTestDatabase, Factories, HttpClient, statelessRequest, type TestDatabase } from '../harness';

/**
 * A task of the stateless revision lives in the database, not in the process that took the call:
 * that resource process stops (SIGTERM, as a deployment replaces it) and a new one starts on the
 * same database; `tasks/get` there finds the task still working, then returns the answer a person
 * gave through the new process.
 */
type Item = { id: string; status: string; response: Record<string, unknown> | null };

const FORM = { id: 'go', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };
const ENV = { DATABASE_POOL_MAX: '4' };

let database: TestDatabase;
let resource: ResourceProcess;
let f: Factories;

beforeAll(async () => {
  database = await createTestDatabase();
  f = new Factories(database.db);
  resource = await spawnResource(database.url, ENV);
}, 120_000);
afterAll(async () => {
  await resource?.stop();
  await database?.drop();
});

describe('the tasks extension at 2026-07-28 across a restart', () => {
  it('a task created before the process restarts is served after it, with the answer', async () => {
    const account = await f.account('owner');
    const key = await f.apiKey(account.org.id, account.user.id);
    const rpc = (method: string, params: Record<string, unknown>) =>
      statelessRequest(resource.url, key.token, method, params, { tasks: true });

    const asked = await rpc('tools/call', {
      name: 'service_ask',
      arguments: { title: 'Restart?', form: FORM },
    });
    expect(asked.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = asked.body.result?.taskId as string;

    await resource.stop();
    expect(resource.child.exitCode).toBe(0);
    resource = await spawnResource(database.url, ENV);

    const working = await rpc('tasks/get', { taskId });
    expect(working.body.result).toMatchObject({ taskId, status: 'working' });
    expect(working.body.result?.result).toBeUndefined();

    const person = new HttpClient(resource.url, account.token);
    const [open] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items;
    expect((await person.post(`/api/items/${open?.id}/answer`, { values: { ok: true } })).status).toBe(200);

    const done = await rpc('tasks/get', { taskId });
    expect(done.status).toBe(200);
    expect(done.body.result).toMatchObject({ taskId, status: 'completed', statusMessage: 'answered' });
    const result = done.body.result?.result as { structuredContent?: Item };
    expect(result.structuredContent).toMatchObject({
      id: open?.id,
      status: 'answered',
      response: { ok: true },
    });
  }, 120_000);
});
