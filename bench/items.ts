import { createServer } from 'node:http';
import autocannon from 'autocannon';
import { type Figures, load } from './lib';

type Sql = import('@beckon/db').Sql;

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

/** The item every creation scenario creates (POST /api/items, and MCP's notify in mcp.ts). */
export const NEW_ITEM = { title: 'Deploy to production?', message: 'The canary is green.', tags: ['deploy'] };

/** POST /api/items at `connections` (at `rate` a second in all, when given). */
export function createItems(
  url: string,
  token: string,
  seconds: number,
  connections = 50,
  round?: number,
  rate?: number,
): Promise<Figures> {
  return load(`POST /api/items (${connections} connections${round ? `, round ${round}` : ''})`, {
    url: `${url}/api/items`,
    seconds,
    connections,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(NEW_ITEM),
    rate,
  });
}

/** Bulk items for the list scenario, written by SQL (UUID v7 ids in creation order, PostgreSQL 18). */
export async function seedItems(sql: Sql, orgId: string, count: number): Promise<void> {
  const batch = 100_000;
  for (let done = 0; done < count; done += batch) {
    await sql`
      insert into items (id, org_id, title, message, level, created_by_type)
      select uuidv7(), ${orgId}, 'Seeded item ' || n, 'Body of seeded item number ' || n,
             (array['info','warning','error','success'])[1 + n % 4], 'agent'
        from generate_series(${done + 1}::int, ${Math.min(done + batch, count)}::int) n`;
  }
  // Steady state: without this, autovacuum of the fresh million rows runs during the measurement.
  await sql`vacuum (analyze) items`;
}

/** GET /api/items (first page, 50 items) on the seeded organization. */
export function listItems(url: string, token: string, seconds: number, connections = 10): Promise<Figures> {
  return load(`GET /api/items at 1M items (${connections} connections)`, {
    url: `${url}/api/items`,
    seconds,
    connections,
    headers: { authorization: `Bearer ${token}` },
  });
}

/** POST /api/items/{id}/answer, each request answering another open item with a form. */
export async function answerItems(sql: Sql, orgId: string, url: string, token: string, seconds: number) {
  const ids = (
    await sql<{ id: string }[]>`
      insert into items (id, org_id, title, form, created_by_type)
      select uuidv7(), ${orgId}, 'Answer me ' || n, ${sql.json(FORM)}, 'agent'
        from generate_series(1, 200000) n returning id`
  ).map((r) => r.id);
  let next = 0;
  const result = await autocannon({
    url,
    connections: 50,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ values: { ok: true } }),
        setupRequest: (request) => ({ ...request, path: `/api/items/${ids[next++ % ids.length]}/answer` }),
      },
    ],
  });
  return {
    name: 'POST /api/items/{id}/answer (50 connections)',
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  } satisfies Figures;
}

/**
 * Deliveries: `count` jobs, half callbacks and half webhook deliveries of one item event, to a
 * local receiver. The jobs are enqueued first, in one statement, and the clock starts when they
 * are committed: this measures delivery (fetch, sign, POST, record, complete), not the bulk
 * enqueue (item changes enqueue theirs one statement each, measured by the creation benchmark).
 * `measure` wraps the delivering part only.
 */
export async function deliverJobs(
  sql: Sql,
  orgId: string,
  count: number,
  measure: <T>(run: () => Promise<T>) => Promise<T> = (run) => run(),
) {
  let received = 0;
  const kinds = { callback: 0, webhook: 0 };
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.end();
      received += 1;
      kinds[req.url === '/webhook' ? 'webhook' : 'callback'] += 1;
      if (received === count) done();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const [item] = await sql<{ id: string }[]>`select id from items where org_id = ${orgId} limit 1`;
  const [event] = await sql<{ id: string }[]>`
    select id from events where org_id = ${orgId} and item_id = ${item!.id} limit 1`;
  const [hook] = await sql<{ id: string }[]>`
    insert into webhooks (org_id, name, url, events, secret, active)
    values (${orgId}, 'bench', ${`${base}/webhook`}, '{}', 'bench-secret', true) returning id`;
  // One add_jobs call for all of them: thousands of add_job calls in one statement each re-plan
  // against a jobs table that grows under them, which takes seconds.
  const half = Math.floor(count / 2);
  await sql`
    select count(*) from graphile_worker.add_jobs(array(
      select row('deliver_callback', json_build_object(
        'delivery_id', gen_random_uuid(), 'org_id', ${orgId}::uuid, 'item_id', ${item!.id}::uuid,
        'event', 'item.answered', 'url', ${`${base}/callback`}::text, 'body', '{"status":"answered"}', 'attempt', 1),
        null, null, 1, null, null, null)::graphile_worker.job_spec
        from generate_series(1, ${half})
      union all
      select row('deliver_webhook', json_build_object(
        'org_id', ${orgId}::uuid, 'webhook_id', ${hook!.id}::uuid, 'event_id', ${event!.id}::uuid, 'delivery_id', gen_random_uuid(),
        'attempt', 1), null, null, 1, null, null, null)::graphile_worker.job_spec
        from generate_series(1, ${count - half})))`;
  const started = Date.now();
  const timeout = setTimeout(done, 120_000);
  await measure(() => finished);
  clearTimeout(timeout);
  const seconds = (Date.now() - started) / 1000;
  receiver.close();
  return { delivered: received, ...kinds, seconds, perSecond: Math.round(received / seconds) };
}
