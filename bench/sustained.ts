import { generateOrgToken, hashToken } from '@beckon/server/auth/tokens';
import { holdsFor, SERVER_ENV, signedInOwner, startCompiledResource } from './lib';
import {
  type Calls,
  calls,
  deliveryReceiver,
  loadAverage,
  paced,
  type Sample,
  sampler,
  send,
  until,
} from './sustained-traffic';
import { openAll, raiseOpenFiles, residentBytes } from './waiting-agents';

type Sql = import('@beckon/db').Sql;

export type SustainedOptions = {
  minutes: number;
  /** Event streams held open for the whole run, spread evenly over the agents. */
  streams: number;
  /** Items created a second (each then answered by a person). */
  rate: number;
};

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };
/** Open streams per agent key: far below the per-credential cap even if it were left as it is. */
const STREAMS_PER_AGENT = 10;
/** The longest wait, after the load stops, for the deliveries and stream events still on their way. */
const DRAIN_MS = 60_000;
const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * A sustained mix on one resource process of the compiled build (with its worker): agents create
 * items (REST, each with a callback_url), a person answers each, the organization's webhook
 * delivers every `item.created` and the callbacks every answer to a local receiver, while
 * `streams` agent streams (`GET /mcp/sse`) stay open throughout. Bounded: the load stops after
 * `minutes`, the deliveries get at most a minute more, and a watchdog ends the whole run (server
 * and database included) 11 minutes past its planned length.
 */
export async function sustainedLoad(
  database: { sql: Sql; url: string; stop: () => Promise<void> },
  options: SustainedOptions,
) {
  const openFiles = raiseOpenFiles(options.streams + 1000);
  if (openFiles < options.streams + 1000) {
    throw new Error(`${options.streams} streams need more open files than this shell allows (${openFiles})`);
  }
  const { sql } = database;
  const { token, orgId } = await signedInOwner(sql);
  const keys = await agentKeys(sql, orgId, Math.ceil(options.streams / STREAMS_PER_AGENT));
  const receiver = await deliveryReceiver();
  await sql`insert into webhooks (org_id, name, url, events, secret, active)
            values (${orgId}, 'sustained', ${`${receiver.base}/webhook`}, '{item.created}',
                    'sustained-bench-secret', true)`;
  const server = await startCompiledResource(database.url, { ...SERVER_ENV, ...holdsFor(options.streams) });
  const watchdog = setTimeout(
    () => {
      console.error('sustained: hard stop, the run outlived its bound');
      server.kill();
      void database.stop().finally(() => process.exit(1));
    },
    (options.minutes + 11) * 60_000,
  );
  try {
    return { ...(await measure(sql, server, token, keys, receiver, options)), openFiles };
  } finally {
    clearTimeout(watchdog);
    await server.stop();
    await receiver.close();
  }
}

async function measure(
  sql: Sql,
  server: { url: string; pid: number },
  token: string,
  keys: string[],
  receiver: Awaited<ReturnType<typeof deliveryReceiver>>,
  options: SustainedOptions,
) {
  const loadBefore = loadAverage();
  const databaseBefore = await databaseSize(sql);
  const rssStart = residentBytes(server.pid);
  let framesReceived = 0;
  const opening = performance.now();
  const streamOwners = Array.from({ length: options.streams }, (_, i) => ({ key: keys[i % keys.length]! }));
  const sockets = await openAll(server.url, streamOwners, () => {
    framesReceived += 1;
  });
  const openSeconds = (performance.now() - opening) / 1000;
  const rssOpen = residentBytes(server.pid);

  const created = calls();
  const answered = calls();
  const createdAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const toAnswer: Array<{ id: string; agent: number }> = [];
  let framesExpected = 0;
  const person = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const samples = sampler(server);
  const begin = performance.now();
  const end = begin + options.minutes * 60_000;
  // Enough callers that a slow moment delays the next calls instead of thinning the load.
  const workers = Math.max(1, Math.min(50, Math.ceil(options.rate / 5)));
  const answerers = Math.min(100, workers * 4);

  const create = async (n: number) => {
    const agent = n % keys.length;
    const sent = performance.now();
    const item = (await send(
      created,
      `${server.url}/api/items`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[agent]}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          title: `Deploy build ${n}?`,
          message: 'The canary is green.',
          form: FORM,
          callback_url: `${receiver.base}/callback`,
        }),
      },
      201,
    )) as { id: string } | null;
    if (!item) return;
    createdAt.set(item.id, sent);
    toAnswer.push({ id: item.id, agent });
  };
  const answer = async () => {
    while (performance.now() < end) {
      const next = toAnswer.shift();
      if (!next) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      const sent = performance.now();
      const body = JSON.stringify({ values: { ok: true } });
      const url = `${server.url}/api/items/${next.id}/answer`;
      if (!(await send(answered, url, { method: 'POST', headers: person, body }, 200))) continue;
      answeredAt.set(next.id, sent);
      framesExpected += streamsOf(next.agent, keys.length, options.streams);
    }
  };
  await Promise.all([
    paced(options.rate, workers, end, create),
    ...Array.from({ length: answerers }, answer),
  ]);
  const loadSeconds = (performance.now() - begin) / 1000;

  const delivered = () =>
    receiver.arrived.webhook.size >= createdAt.size &&
    receiver.arrived.callback.size >= answeredAt.size &&
    framesReceived >= framesExpected;
  await until(delivered, DRAIN_MS);
  const rssEnd = residentBytes(server.pid);
  const stillOpen = sockets.filter((s) => !s.destroyed).length;
  for (const socket of sockets) socket.destroy();
  return {
    options,
    agents: keys.length,
    loadSeconds,
    begin,
    created,
    answered,
    unanswered: toAnswer.length,
    callback: { sent: answeredAt, arrived: receiver.arrived.callback },
    webhook: { sent: createdAt, arrived: receiver.arrived.webhook },
    repeatedDeliveries: receiver.repeated(),
    frames: { expected: framesExpected, received: framesReceived },
    streams: { opened: sockets.length, openSeconds, stillOpen },
    rssMiB: { start: mib(rssStart), open: mib(rssOpen), end: mib(rssEnd) },
    samples: (await samples.stop()) satisfies Sample[],
    databaseMiB: { before: databaseBefore, after: await databaseSize(sql) },
    loadAverage: { before: loadBefore, after: loadAverage() },
  };
}

export type SustainedRun = Awaited<ReturnType<typeof sustainedLoad>>;
export type { Calls };

/** How many of the streams belong to agent `agent` (stream i is agent i mod agents'). */
const streamsOf = (agent: number, agents: number, streams: number) =>
  Math.floor(streams / agents) + (agent < streams % agents ? 1 : 0);

const databaseSize = async (sql: Sql) =>
  Number((await sql<{ bytes: string }[]>`select pg_database_size(current_database()) as bytes`)[0]?.bytes) /
  1024 /
  1024;

/** `count` agents of the organization, each with an API key acting for its owner; their raw keys. */
async function agentKeys(sql: Sql, orgId: string, count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, () => generateOrgToken(orgId));
  await sql`
    with input as (select hash, n::int from unnest(${keys.map(hashToken)}::text[]) with ordinality as t(hash, n)),
         owner as (select user_id from memberships where org_id = ${orgId} limit 1),
         agent as (insert into agents (org_id, name) select ${orgId}, 'agent-' || n from input returning id, name)
    insert into api_keys (token_hash, org_id, agent_id, user_id, label)
    select input.hash, ${orgId}, agent.id, owner.user_id, 'sustained'
      from input join agent on agent.name = 'agent-' || input.n, owner`;
  return keys;
}
