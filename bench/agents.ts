import { openEventStream } from '../tests/src/harness/sse';
import { percentile } from './lib';

type Sql = import('@beckon/db').Sql;

/**
 * Latency from answering an item (REST) to the `item.answered` event arriving on each of
 * `streams` open /mcp/sse connections: one sample per (answer, stream).
 */
export async function answerToStream(
  sql: Sql,
  orgId: string,
  url: string,
  token: string,
  options: { streams: number; answers: number },
) {
  const form = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] };
  const ids = (
    await sql<{ id: string }[]>`
      insert into items (id, org_id, title, form, created_by_type)
      select uuidv7(), ${orgId}, 'Stream me ' || n, ${sql.json(form)}, 'agent'
        from generate_series(1, ${options.answers}::int) n returning id`
  ).map((r) => r.id);
  const arrivals = new Map<string, number[]>();
  const streams = await Promise.all(
    Array.from({ length: options.streams }, () =>
      openEventStream(`${url}/mcp/sse?scope=org`, { authorization: `Bearer ${token}` }),
    ),
  );
  const refused = streams.filter((stream) => stream.status !== 200);
  if (refused.length > 0) {
    for (const stream of streams) stream.close();
    throw new Error(`${refused.length} of ${streams.length} streams refused (status ${refused[0]?.status})`);
  }
  const seen = streams.map(() => 0);
  const poll = setInterval(() => {
    streams.forEach((stream, i) => {
      for (; seen[i]! < stream.events.length; seen[i]! += 1) {
        const event = stream.events[seen[i]!]!;
        if (event.event !== 'item.answered') continue;
        const itemId = (JSON.parse(event.data) as { item: { id: string } }).item.id;
        arrivals.get(itemId)?.push(performance.now());
      }
    });
  }, 1);
  const samples: number[] = [];
  try {
    for (const id of ids) {
      arrivals.set(id, []);
      const started = performance.now();
      await fetch(`${url}/api/items/${id}/answer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ values: { ok: true } }),
      });
      const deadline = Date.now() + 5000;
      while ((arrivals.get(id)?.length ?? 0) < streams.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      for (const at of arrivals.get(id) ?? []) samples.push(at - started);
    }
  } finally {
    clearInterval(poll);
    for (const stream of streams) stream.close();
  }
  const sorted = samples.sort((a, b) => a - b);
  return {
    expected: ids.length * streams.length,
    received: samples.length,
    p50: Number(percentile(sorted, 50).toFixed(1)),
    p99: Number(percentile(sorted, 99).toFixed(1)),
  };
}
