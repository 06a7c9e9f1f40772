import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { percentile } from './lib';
import { residentBytes } from './waiting-agents';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One operation's calls: when each was sent (`performance.now()`), how long it took, what failed. */
export type Calls = { sent: number[]; took: number[]; errors: number; statuses: Record<string, number> };
export const calls = (): Calls => ({ sent: [], took: [], errors: 0, statuses: {} });

/**
 * A JSON request timed into `into`: its parsed answer when the status is `expected`, else null
 * (counted as an error, by status; 0 when no answer came at all).
 */
export async function send(into: Calls, url: string, init: RequestInit, expected: number) {
  const sent = performance.now();
  let status = 0;
  let body: unknown = null;
  try {
    const response = await fetch(url, init);
    status = response.status;
    body = await response.json().catch(() => null);
  } catch {
    // refused or reset: status 0
  }
  into.sent.push(sent);
  into.took.push(performance.now() - sent);
  into.statuses[status] = (into.statuses[status] ?? 0) + 1;
  if (status === expected) return body;
  into.errors += 1;
  return null;
}

/**
 * `workers` loops that together call `call` `perSecond` times a second until `until`
 * (`performance.now()`): each call starts at its slot, or at once when its loop is behind, so a
 * server that cannot keep up shows as a rate below the one asked for, not as a growing queue.
 */
export async function paced(
  perSecond: number,
  workers: number,
  until: number,
  call: (n: number) => Promise<void>,
): Promise<void> {
  const gap = 1000 / perSecond;
  const begin = performance.now();
  const loop = async (worker: number) => {
    for (let slot = worker; ; slot += workers) {
      const due = begin + slot * gap;
      if (due >= until || performance.now() >= until) return;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      await call(slot);
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, worker) => loop(worker)));
}

/** Waits until `done()` holds or `ms` have passed; whether it holds. */
export async function until(done: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; !done() && Date.now() < deadline; ) await sleep(100);
  return done();
}

/**
 * A local receiver of callbacks (`/callback`: `item_id` in the body) and webhook deliveries
 * (`/webhook`: the event, `data.item.id`): when each item's first delivery of each kind arrived.
 */
export async function deliveryReceiver() {
  const arrived = { callback: new Map<string, number>(), webhook: new Map<string, number>() };
  let repeated = 0;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.end();
      let body: { item_id?: string; data?: { item?: { id?: string } } } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // not JSON: counted under no item, so its item stays missing
      }
      const kind = request.url === '/webhook' ? 'webhook' : 'callback';
      const id = (kind === 'webhook' ? body.data?.item?.id : body.item_id) ?? '';
      if (arrived[kind].has(id)) repeated += 1;
      else arrived[kind].set(id, at);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  return {
    base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    arrived,
    /** Deliveries of an item and kind after the first (a retried attempt). */
    repeated: () => repeated,
    close: () => new Promise<void>((resolve) => receiver.close(() => resolve())),
  };
}

/** The 1-minute load average of the machine. */
export const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

export type Sample = { at: number; rssMiB: number; heapMiB: number; load: number };

/** The V8 heap in use, from the process's Prometheus metrics (`nodejs_heap_size_used_bytes`); 0 if absent. */
const heapUsed = (url: string) =>
  fetch(`${url}/metrics`)
    .then((response) => response.text())
    .then((text) => Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? 0) / 1024 / 1024)
    .catch(() => 0);

/**
 * The server's VmRSS and V8 heap, and the machine's load average, every `ms` until stopped: the
 * heap tells a leak (it grows) from memory V8 keeps for later (only the RSS grows).
 */
export function sampler(server: { url: string; pid: number }, ms = 5000) {
  const samples: Sample[] = [];
  const take = async () => {
    const at = performance.now();
    const rssMiB = residentBytes(server.pid) / 1024 / 1024;
    samples.push({ at, rssMiB, heapMiB: await heapUsed(server.url), load: loadAverage() });
  };
  void take();
  const timer = setInterval(() => void take(), ms);
  return {
    samples,
    stop: async () => {
      clearInterval(timer);
      await take();
      return samples;
    },
  };
}

/** Count, p50 and p99 (ms, one decimal) of a list of durations. */
export function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => Number(percentile(sorted, p).toFixed(1));
  return { count: sorted.length, p50: at(50), p99: at(99) };
}

/** The delay from each item's request (`sent`) to its delivery's arrival; arrivals of unknown items are left out. */
export function lags(sent: Map<string, number>, arrived: Map<string, number>, from = 0, to = Infinity) {
  const values: number[] = [];
  for (const [id, at] of sent) {
    const delivered = arrived.get(id);
    if (delivered !== undefined && at >= from && at < to) values.push(delivered - at);
  }
  return values;
}
