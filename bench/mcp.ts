import { createItems, NEW_ITEM } from './items';
import { type Figures, load } from './lib';
import { alternate, median, percent, type Rounds, warmUp } from './rounds';
import { cpuPerOperation } from './where-time-goes';

const MCP_HEADERS = (key: string, protocol = '2025-03-26') => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': protocol,
});

const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/** POST /mcp tools/call service.notify (stateless: no initialize needed per request). */
export function mcpNotify(
  url: string,
  key: string,
  seconds: number,
  connections = 50,
  round?: number,
  protocol = '2025-03-26',
  rate?: number,
) {
  return load(
    `MCP ${protocol} service.notify (${connections} connections${round ? `, round ${round}` : ''})`,
    {
      url: `${url}/mcp`,
      seconds,
      connections,
      method: 'POST',
      headers: MCP_HEADERS(key, protocol),
      body: rpc('tools/call', {
        name: 'service.notify',
        arguments: NEW_ITEM,
      }),
      rate,
    },
  );
}

const MODERN = '2026-07-28';

/** The same call at 2026-07-28: no handshake, the revision in `_meta` and mirrored headers. */
export function mcpNotifyModern(url: string, key: string, seconds: number, connections = 50, round?: number) {
  return load(`MCP ${MODERN} service_notify (${connections} connections${round ? `, round ${round}` : ''})`, {
    url: `${url}/mcp`,
    seconds,
    connections,
    method: 'POST',
    headers: { ...MCP_HEADERS(key, MODERN), 'mcp-method': 'tools/call', 'mcp-name': 'service_notify' },
    body: rpc('tools/call', {
      name: 'service_notify',
      arguments: NEW_ITEM,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    }),
  });
}

/**
 * `POST /api/items`, 2025-11-25 and 2026-07-28 `tools/call service.notify`, same key, same
 * connections, one after the other in each round (in turn first); the medians of 2026-07-28 over each.
 */
export async function notifyRevisions(url: string, key: string, rounds: number, seconds: number) {
  const run: Array<{ rest: Figures; older: Figures; modern: Figures }> = [];
  const measure = {
    rest: (round: number) => createItems(url, key, seconds, 50, round),
    older: (round: number) => mcpNotify(url, key, seconds, 50, round, '2025-11-25'),
    modern: (round: number) => mcpNotifyModern(url, key, seconds, 50, round),
  };
  const order = ['rest', 'older', 'modern'] as const;
  for (let round = 1; round <= rounds; round++) {
    // Each round starts with another one: the items table grows, and later runs would pay for it.
    const figures: Partial<Record<(typeof order)[number], Figures>> = {};
    for (let i = 0; i < order.length; i++) {
      const which = order[(round - 1 + i) % order.length]!;
      figures[which] = await measure[which](round);
    }
    run.push(figures as { rest: Figures; older: Figures; modern: Figures });
  }
  return {
    rounds: run,
    overRest: median(run.map((r) => r.modern.rps / r.rest.rps)),
    overOlder: median(run.map((r) => r.modern.rps / r.older.rps)),
  };
}

/** `tools/call service.notify` against `POST /api/items`, same key, same connections, alternating. */
export async function notifyAgainstRest(
  url: string,
  key: string,
  rounds: number,
  seconds: number,
): Promise<Rounds<Figures, Figures>> {
  // Every path measured here and in notifyRevisions, optimized before the first round.
  await warmUp(
    (warm) => createItems(url, key, warm, 50),
    (warm) => mcpNotify(url, key, warm, 50),
    (warm) => mcpNotify(url, key, warm, 50, undefined, '2025-11-25'),
    (warm) => mcpNotifyModern(url, key, warm, 50),
  );
  return alternate(
    rounds,
    (round) => createItems(url, key, seconds, 50, round),
    (round) => mcpNotify(url, key, seconds, 50, round),
    (rest, mcp) => mcp.rps / rest.rps,
  );
}

/** BENCH_MCP_RATE (default 500): the offered load a second at which the CPU of a call is compared. */
const EQUAL_RATE = Number(process.env.BENCH_MCP_RATE ?? 500);

/**
 * The resource process's CPU a call, MCP's notify over REST's creation, at one offered load below
 * saturation, in alternating rounds: what each path does for a call (the JSON-RPC envelope and the
 * tool's check against REST's route), without the throughput's spread. A note for the report.
 */
export async function cpuAtEqualLoad(
  url: string,
  key: string,
  pid: number | undefined,
  rounds: number,
  seconds: number,
) {
  const perCall = async (run: () => Promise<Figures>) => {
    const { ms } = await cpuPerOperation(pid, ['server'], async () => (await run()).requests ?? 0);
    return ms[0]![1];
  };
  const cpu = await alternate(
    rounds,
    () => perCall(() => createItems(url, key, seconds, 50, undefined, EQUAL_RATE)),
    () => perCall(() => mcpNotify(url, key, seconds, 50, undefined, undefined, EQUAL_RATE)),
    (rest, mcp) => mcp / rest,
  );
  const each = cpu.rounds.map((r) => `${r.first.toFixed(3)} / ${r.second.toFixed(3)} ms`).join(', ');
  return `MCP notify / POST /api/items, the server's CPU a call at ${EQUAL_RATE} a second, median of ${rounds} rounds: ${percent(cpu.median)} (rounds ${cpu.rounds.map((r) => percent(r.ratio)).join(', ')}; REST / MCP ${each})`;
}

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

/** `count` open questions asked as MCP tasks; their task ids (none when the server has no tasks). */
export async function openTasks(url: string, key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS(key, '2025-11-25'),
      body: rpc('tools/call', {
        name: 'service.ask',
        arguments: { title: `Task ${i}`, form: FORM },
        task: { ttl: 86_400_000 },
      }),
    });
    const body = (await response.json()) as { result?: { task?: { taskId: string } } };
    if (!body.result?.task) return [];
    ids.push(body.result.task.taskId);
  }
  return ids;
}

/**
 * `tasks/get` of one task at `tasks.length` open tasks against `GET /api/items/{id}` of an item,
 * same key, same connections, alternating; the ratio is tasks/get's throughput over GET's.
 */
export async function pollTasks(url: string, key: string, tasks: string[], rounds: number, seconds: number) {
  const task = tasks[tasks.length >> 1];
  if (!task) return null;
  const listed = await fetch(`${url}/api/items?limit=1`, { headers: { authorization: `Bearer ${key}` } });
  const [item] = ((await listed.json()) as { items: Array<{ id: string }> }).items;
  return alternate(
    rounds,
    (round) =>
      load(`GET /api/items/{id} (10 connections, round ${round})`, {
        url: `${url}/api/items/${item?.id}`,
        seconds,
        connections: 10,
        headers: { authorization: `Bearer ${key}` },
      }),
    (round) =>
      load(`tasks/get at ${tasks.length} open tasks (10 connections, round ${round})`, {
        url: `${url}/mcp`,
        seconds,
        connections: 10,
        method: 'POST',
        headers: MCP_HEADERS(key, '2025-11-25'),
        body: rpc('tasks/get', { taskId: task }),
      }),
    (get, polled) => polled.rps / get.rps,
  );
}
