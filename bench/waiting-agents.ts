import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { generateOrgToken, generateToken, hashToken } from '@beckon/server/auth/tokens';
import { holdsFor, percentile, startCompiledResource } from './lib';

type Sql = import('@beckon/db').Sql;

/**
 * Many agents waiting on one resource process: `streams` agents, each with its own API key and
 * one open item, each holding `GET /mcp/sse` open (its own items, the default scope); then
 * people answer, and each answer is timed until its agent's stream carries `item.answered`.
 * The resource process runs from its package.json script (`start:resource`, built here first),
 * so the figures are the compiled build's, as operators run it.
 */
export async function waitingAgents(
  sql: Sql,
  databaseUrl: string,
  options: { streams: number; answers: number; perSecond: number; idleSeconds: number },
) {
  const openFiles = raiseOpenFiles(options.streams + 1000);
  if (openFiles < options.streams + 1000) {
    throw new Error(`${options.streams} streams need more open files than this shell allows (${openFiles})`);
  }
  // Default settings but the caps on open streams: one person's agents hold them all.
  const server = await startCompiledResource(databaseUrl, holdsFor(options.streams));
  const { url, pid } = server;
  try {
    const { ownerToken, agents } = await waitingOrganization(sql, options.streams);
    await fetch(`${url}/health`);
    const rssBefore = residentBytes(pid);

    const arrivals = new Map<number, number>();
    const started = performance.now();
    const streams = await openAll(url, agents, (index, at) => arrivals.set(index, at));
    const openSeconds = (performance.now() - started) / 1000;
    // Let the process settle (the last opens' garbage) before reading its memory.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rssOpen = residentBytes(pid);

    // The agents wait: keep-alives every 15 s, each re-checking its credential (the credential
    // cache keeps an entry 60 s, so a minute of waiting reaches the steady state).
    const idle = { cpu: cpuSeconds(pid), commits: await commits(sql), at: performance.now() };
    await new Promise((resolve) => setTimeout(resolve, options.idleSeconds * 1000));
    const idleSeconds = (performance.now() - idle.at) / 1000;
    const idleCpuPercent = ((cpuSeconds(pid) - idle.cpu) / idleSeconds) * 100;
    const idleTransactionsPerSecond = ((await commits(sql)) - idle.commits) / idleSeconds;

    const commitsBefore = await commits(sql);
    const samples = await answerPaced(url, ownerToken, agents, arrivals, options);
    const transactionsPerSecond = ((await commits(sql)) - commitsBefore) / samples.answerSeconds;
    const rssAfter = residentBytes(pid);
    const stillOpen = streams.filter((s) => !s.destroyed).length;
    for (const s of streams) s.destroy();
    return {
      streams: streams.length,
      stillOpen,
      openSeconds,
      openFiles,
      rssBeforeMiB: mib(rssBefore),
      rssOpenMiB: mib(rssOpen),
      rssAfterMiB: mib(rssAfter),
      perStreamKiB: (rssOpen - rssBefore) / streams.length / 1024,
      transactionsPerSecond: Math.round(transactionsPerSecond),
      idleSeconds: Math.round(idleSeconds),
      idleCpuPercent: Number(idleCpuPercent.toFixed(1)),
      idleTransactionsPerSecond: Math.round(idleTransactionsPerSecond),
      ...samples,
    };
  } finally {
    await server.stop();
  }
}

/** Transactions committed in the database so far (every statement outside one counts one). */
const commits = async (sql: Sql) =>
  Number(
    (
      await sql<
        { n: string }[]
      >`select xact_commit as n from pg_stat_database where datname = current_database()`
    )[0]?.n,
  );

const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);

/**
 * This process's open-file limit raised (prlimit) to `wanted`, or as far as the hard limit goes
 * when it may not raise that (only root may); children inherit it. Returns the limit reached.
 */
export function raiseOpenFiles(wanted = 0): number {
  const limits = () => {
    const text = readFileSync('/proc/self/limits', 'utf8');
    const [, soft = '0', hard = '0'] = /Max open files\s+(\S+)\s+(\S+)/.exec(text) ?? [];
    return { soft: Number(soft), hard: Number(hard) };
  };
  const { soft, hard } = limits();
  if (soft >= wanted && soft === hard) return soft;
  const target = Math.max(wanted, hard);
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${target}:${target}`], {
      stdio: 'ignore',
    });
  } catch {
    execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${hard}:${hard}`]);
  }
  return limits().soft;
}

export const residentBytes = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** CPU seconds the process has used (user + system; clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

type Agent = { key: string; itemId: string };

/** An Enterprise organization with an owner, and `count` agents each with a key and one open item. */
async function waitingOrganization(sql: Sql, count: number) {
  const ownerToken = generateToken();
  const orgId = randomUUID();
  const keys = Array.from({ length: count }, () => generateOrgToken(orgId));
  const form = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] };
  const agents: Agent[] = new Array(count);
  await sql.begin(async (tx) => {
    const [org] =
      await tx`insert into organizations (id, name, slug) values (${orgId}, 'Waiting', 'waiting-' || gen_random_uuid()) returning slug`;
    await tx`insert into organization_slugs (slug, org_id) values (${org!.slug}, ${orgId})`;
    const [user] =
      await tx`insert into users (email) values ('waiting-' || gen_random_uuid() || '@example.test') returning id`;
    await tx`insert into memberships (org_id, user_id, role_id)
             select ${orgId}, ${user!.id}, id from roles where name = 'owner' and is_system`;
    await tx`insert into sessions (token_hash, user_id, org_id, origin, expires_at)
             values (${hashToken(ownerToken)}, ${user!.id}, ${orgId}, 'login', now() + interval '1 day')`;
    await tx`update subscriptions set plan_id = (select id from plans where code = 'enterprise') where org_id = ${orgId}`;
    const rows = await tx<{ id: string; n: number }[]>`
      with input as (select hash, n::int from unnest(${keys.map(hashToken)}::text[]) with ordinality as t(hash, n)),
           agent as (insert into agents (org_id, name) select ${orgId}, 'agent-' || n from input returning id, name),
           paired as (select agent.id as agent_id, input.hash, input.n from input join agent on agent.name = 'agent-' || input.n),
           key as (insert into api_keys (token_hash, org_id, agent_id, user_id, label)
                   select hash, ${orgId}, agent_id, ${user!.id}, 'waiting' from paired)
      insert into items (id, org_id, title, form, created_by_type, created_by_id, agent_id)
      select uuidv7(), ${orgId}, n::text, ${tx.json(form)}, 'agent', agent_id, agent_id from paired
      returning id, title::int as n`;
    for (const { id, n } of rows) agents[n - 1] = { key: keys[n - 1]!, itemId: id };
  });
  return { ownerToken, agents };
}

/** Opens every agent's stream (100 opening at a time), each on its own connection. */
export async function openAll(
  url: string,
  agents: Array<{ key: string }>,
  answered: (index: number, at: number) => void,
) {
  const sockets: import('node:net').Socket[] = [];
  let next = 0;
  const opener = async () => {
    for (let index = next++; index < agents.length; index = next++) {
      sockets.push(
        await openStream(`${url}/mcp/sse`, agents[index]!.key, index, () =>
          answered(index, performance.now()),
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: 100 }, opener));
  return sockets;
}

/**
 * Loopback connections per source address, well under the ~28,000 ephemeral ports one address
 * has: further streams come from 127.0.0.2, 127.0.0.3 and on (all of 127.0.0.0/8 is loopback).
 */
const STREAMS_PER_ADDRESS = 10_000;

/** An SSE connection; `onAnswered` for each `item.answered` frame that arrives. Resolves with its socket once open. */
function openStream(url: string, key: string, index: number, onAnswered: () => void) {
  return new Promise<import('node:net').Socket>((resolve, reject) => {
    const request = http.get(
      url,
      {
        agent: false,
        localAddress: `127.0.0.${1 + Math.floor(index / STREAMS_PER_ADDRESS)}`,
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`stream: ${response.statusCode}`));
        response.setEncoding('utf8');
        const marker = 'event: item.answered';
        let tail = '';
        response.on('data', (chunk: string) => {
          // The tail is too short to hold a whole marker: each frame is counted once, even split.
          const text = tail + chunk;
          for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) onAnswered();
          tail = text.slice(1 - marker.length);
        });
        response.on('error', () => {});
        resolve(response.socket);
      },
    );
    request.on('error', reject);
  });
}

function percentiles<Name extends string>(name: Name, values: number[]) {
  const sorted = values.sort((a, b) => a - b);
  const at = (p: number) => Number(percentile(sorted, p).toFixed(1));
  return { [`${name}P50`]: at(50), [`${name}P99`]: at(99) } as Record<`${Name}P50` | `${Name}P99`, number>;
}

/**
 * `answers` answers at `perSecond` (a person's session, REST), to items of agents spread over
 * the streams; each timed from the request's start to its agent's stream receiving the outcome.
 */
async function answerPaced(
  url: string,
  token: string,
  agents: Agent[],
  arrivals: Map<number, number>,
  options: { answers: number; perSecond: number },
) {
  const step = Math.max(1, Math.floor(agents.length / options.answers));
  const chosen = Array.from({ length: Math.min(options.answers, agents.length) }, (_, i) => i * step);
  const startedAt = new Map<number, number>();
  const failures: number[] = [];
  const respondedAt = new Map<number, number>();
  const inFlight: Promise<void>[] = [];
  const begin = performance.now();
  for (const [i, index] of chosen.entries()) {
    const due = begin + (i * 1000) / options.perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const sent = performance.now();
    startedAt.set(index, sent);
    inFlight.push(
      fetch(`${url}/api/items/${agents[index]!.itemId}/answer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ values: { ok: true } }),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          respondedAt.set(index, performance.now());
          if (response.status !== 200) failures.push(response.status);
        },
        () => void failures.push(0),
      ),
    );
  }
  await Promise.all(inFlight);
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    if (chosen.every((index) => arrivals.has(index))) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const latencies = chosen
    .filter((index) => arrivals.has(index))
    .map((index) => arrivals.get(index)! - startedAt.get(index)!)
    .sort((a, b) => a - b);
  return {
    answers: chosen.length,
    received: latencies.length,
    failures: failures.length,
    answerSeconds: (performance.now() - begin) / 1000,
    p50: Number(percentile(latencies, 50).toFixed(1)),
    p99: Number(percentile(latencies, 99).toFixed(1)),
    max: Number((latencies[latencies.length - 1] ?? 0).toFixed(1)),
    // The answer's own HTTP response, and the stream's arrival after it (negative: before it):
    // what of the delay is the write itself, and what the stream adds.
    ...percentiles(
      'response',
      [...respondedAt].map(([index, at]) => at - startedAt.get(index)!),
    ),
    ...percentiles(
      'afterResponse',
      chosen
        .filter((index) => arrivals.has(index) && respondedAt.has(index))
        .map((index) => arrivals.get(index)! - respondedAt.get(index)!),
    ),
  };
}
