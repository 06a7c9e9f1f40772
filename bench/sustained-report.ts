import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { SustainedRun } from './sustained';
import { type Calls, lags, stats } from './sustained-traffic';

type Sql = import('@beckon/db').Sql;

const DOC = new URL('../docs/benchmarks.md', import.meta.url);
const START = '<!-- sustained figures: written by `pnpm bench sustained` -->';
const END = '<!-- end of sustained figures -->';

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const thousands = (value: number) => value.toLocaleString('en-US');

/** Date, commit and machine of a run, for the figures' heading. */
export async function runContext(sql: Sql) {
  const [pg] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  const dirty = git('status', '--porcelain', '--untracked-files=no') ? ', with uncommitted changes' : '';
  return {
    date: new Date().toISOString().slice(0, 10),
    commit: `${git('rev-parse', '--short', 'HEAD')}${dirty}`,
    machine:
      `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ` +
      `${round(totalmem() / 1024 ** 3)} GiB RAM, Node ${process.versions.node}, PostgreSQL ${pg?.version ?? '?'}`,
  };
}

/** What a run did, in Markdown: the totals, then minute by minute. */
export function sustainedTables(run: SustainedRun, context: Awaited<ReturnType<typeof runContext>>): string {
  const { options, frames, streams, rssMiB, databaseMiB } = run;
  const rss = run.samples.map((s) => s.rssMiB);
  const loads = run.samples.map((s) => s.load);
  const heap = run.samples.map((s) => Math.round(s.heapMiB));
  const perSecond = (count: number) => round(count / run.loadSeconds);
  const operation = (name: string, c: Calls) => {
    const s = stats(c.took);
    const ok = s.count - c.errors;
    return `| ${name} | ${thousands(ok)} | ${perSecond(ok)} | ${s.p50} | ${s.p99} | ${c.errors}${failures(c)} |`;
  };
  const delivery = (name: string, d: SustainedRun['callback']) => {
    const s = stats(lags(d.sent, d.arrived));
    return `| ${name} | ${thousands(s.count)} of ${thousands(d.sent.size)} | ${perSecond(s.count)} | ${s.p50} | ${s.p99} | ${d.sent.size - s.count} missing |`;
  };
  const missingFrames = Math.max(0, frames.expected - frames.received);
  const errors =
    run.created.errors +
    run.answered.errors +
    (run.webhook.sent.size - lags(run.webhook.sent, run.webhook.arrived).length) +
    (run.callback.sent.size - lags(run.callback.sent, run.callback.arrived).length) +
    missingFrames +
    (streams.opened - streams.stillOpen);
  return [
    `${context.date}, ${context.commit}; ${context.machine}. ${options.minutes} min at ${options.rate} items/s ` +
      `asked, ${thousands(streams.opened)} streams over ${thousands(run.agents)} agent keys ` +
      `(opened in ${round(streams.openSeconds)} s, open-file limit ${thousands(run.openFiles)}); ` +
      `load average ${run.loadAverage.before} before, ${Math.min(...loads)}–${Math.max(...loads)} ` +
      `(mean ${round(mean(loads))}) during, ${run.loadAverage.after} after.`,
    '',
    '| operation | done | per second | p50 ms | p99 ms | errors |',
    '|---|---:|---:|---:|---:|---|',
    operation('create an item (agent key, `POST /api/items`)', run.created),
    operation('answer it (person, `POST /api/items/{id}/answer`)', run.answered),
    delivery('webhook `item.created` (lag from the creation request)', run.webhook),
    delivery('callback `item.answered` (lag from the answer request)', run.callback),
    `| \`item.answered\` on the agents' streams | ${thousands(frames.received)} of ${thousands(frames.expected)} | ` +
      `${perSecond(frames.received)} | | | ${missingFrames} missing |`,
    '',
    '| resource | figure |',
    '|---|---|',
    `| server VmRSS | ${rssMiB.start} MiB at start, ${rssMiB.open} MiB with the streams open, ` +
      `${rssMiB.end} MiB at the end, ${Math.round(Math.max(...rss))} MiB at most |`,
    `| server V8 heap in use | ${heap[0]} MiB at the start of the load, ${heap[heap.length - 1]} MiB at the end, ` +
      `${Math.max(...heap)} MiB at most |`,
    `| database size | ${round(databaseMiB.before)} → ${round(databaseMiB.after)} MiB ` +
      `(+${round(databaseMiB.after - databaseMiB.before)} MiB) |`,
    `| streams open at the end | ${thousands(streams.stillOpen)} of ${thousands(streams.opened)} |`,
    `| errors in all | ${errors} (besides: created but not yet answered at the stop ${run.unanswered}, ` +
      `deliveries repeated ${run.repeatedDeliveries}) |`,
    '',
    ...perMinute(run),
  ].join('\n');
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

const failures = (c: Calls) => {
  const odd = Object.entries(c.statuses).filter(([status]) => !/^2/.test(status));
  return odd.length
    ? ` (${odd.map(([status, n]) => `${n} × ${status === '0' ? 'no answer' : status}`).join(', ')})`
    : '';
};

/** One row a minute: whether anything drifts as the run goes on. */
function perMinute(run: SustainedRun): string[] {
  const rows = [
    '| minute | created/s | create p99 ms | answered/s | answer p99 ms | webhook lag p99 ms | callback lag p99 ms | VmRSS MiB | heap MiB | load |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (let m = 0; m < run.options.minutes; m++) {
    const from = run.begin + m * 60_000;
    const to = from + 60_000;
    const seconds = 60;
    const inMinute = (c: Calls) => c.took.filter((_, i) => c.sent[i]! >= from && c.sent[i]! < to);
    const samples = run.samples.filter((s) => s.at >= from && s.at < to);
    const created = inMinute(run.created);
    const answered = inMinute(run.answered);
    rows.push(
      `| ${m + 1} | ${round(created.length / seconds)} | ${stats(created).p99} | ${round(answered.length / seconds)} | ` +
        `${stats(answered).p99} | ${stats(lags(run.webhook.sent, run.webhook.arrived, from, to)).p99} | ` +
        `${stats(lags(run.callback.sent, run.callback.arrived, from, to)).p99} | ` +
        `${Math.round(Math.max(0, ...samples.map((s) => s.rssMiB)))} | ` +
        `${Math.round(Math.max(0, ...samples.map((s) => s.heapMiB)))} | ${round(mean(samples.map((s) => s.load)))} |`,
    );
  }
  return rows;
}

/** Puts `tables` in docs/benchmarks.md between the sustained section's markers, replacing what was there. */
export function writeSustainedFigures(tables: string): boolean {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) return false;
  writeFileSync(DOC, `${doc.slice(0, start + START.length)}\n\n${tables}\n\n${doc.slice(end)}`);
  return true;
}
