import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';
import { startScript } from '../harness/production';

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** `pnpm org:plan <args>` as an operator runs it: the compiled script, on this suite's database. */
async function orgPlan(args: string[], env: Record<string, string> = {}) {
  const { PAYMENT_SECRET_KEY: _key, ...inherited } = process.env;
  const run = startScript('org:plan', {
    env: { ...inherited, DATABASE_URL: server.database.url, LOG_LEVEL: 'warn', ...env },
    args,
  });
  // 'close': once its output is read to the end too.
  const [code] = await once(run.child, 'close');
  return { code, output: run.output() };
}

async function owner(personal = false) {
  const { org, token } = await f.account('owner', { personal });
  return { org, api: server.resource.as(token) };
}

const createAgent = (api: HttpClient, name: string) => api.post('/api/admin/agents', { name });

describe('pnpm org:plan (a server without a payment provider)', () => {
  it('puts an organization on a plan whose limits apply at once, as an audit entry of the service', async () => {
    const { org, api } = await owner();
    expect((await createAgent(api, 'first')).status).toBe(201);
    expect((await createAgent(api, 'second')).status).toBe(402);

    const run = await orgPlan([org.slug, 'team']);
    expect(run, run.output).toEqual({ code: 0, output: `${org.slug} is on team\n` });
    const usage = await api.get<{ plan: { code: string }; subscription: { status: string } }>(
      '/api/admin/usage',
    );
    expect(usage.body).toMatchObject({ plan: { code: 'team' }, subscription: { status: 'active' } });
    expect((await createAgent(api, 'second')).status).toBe(201);

    // By id too; back to Free, where the two agents are over the limit of one.
    expect((await orgPlan([org.id, 'free'])).code).toBe(0);
    expect((await createAgent(api, 'third')).status).toBe(402);
    const entries = await server.database.sql<{ data: { plan: string; before: string }; linked: boolean }[]>`
      select data, seq is not null and hash is not null as linked from audit_entries
       where org_id = ${org.id} and action = 'billing.plan_set' order by id`;
    expect(entries).toEqual([
      { data: { plan: 'team', before: 'free', by: 'operator' }, linked: true },
      { data: { plan: 'free', before: 'team', by: 'operator' }, linked: true },
    ]);
  });

  it('refuses what it cannot do, saying why, and changes nothing', async () => {
    const { org: personal, api } = await owner(true);
    const refused = await orgPlan([personal.slug, 'enterprise']);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`${personal.slug} is a personal workspace: it stays on Free`);
    expect((await api.get<{ plan: { code: string } }>('/api/admin/usage')).body.plan.code).toBe('free');

    const unknown = await orgPlan(['no-such-org', 'team']);
    expect(unknown).toEqual({ code: 1, output: 'no organization with the slug or id no-such-org\n' });
    const { org } = await owner();
    expect(await orgPlan([org.slug, 'platinum'])).toEqual({
      code: 1,
      output: 'no plan platinum: free, team or enterprise\n',
    });
    const billed = await orgPlan([org.slug, 'team'], { PAYMENT_SECRET_KEY: 'sk_test_beckon' });
    expect(billed.code).toBe(1);
    expect(billed.output).toContain('billing is configured (PAYMENT_SECRET_KEY)');
    expect((await orgPlan([org.slug])).code).toBe(2);
    const [plan] = await server.database.sql<{ code: string }[]>`
      select p.code from subscriptions s join plans p on p.id = s.plan_id where s.org_id = ${org.id}`;
    expect(plan?.code).toBe('free');
  });
});
