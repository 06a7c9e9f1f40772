import { createItems } from '../items';
import { benchDatabase, SERVER_ENV, signedInOwner, startResourceProcess } from '../lib';

const database = await benchDatabase();
const server = await startResourceProcess(database.url, { ...SERVER_ENV, ...(process.env.PROBE_ENV ? JSON.parse(process.env.PROBE_ENV) : {}) });
const stats = async () => {
  const [d] = await database.sql<{ c: string }[]>`select xact_commit::text as c from pg_stat_database where datname = 'beckon'`;
  const [w] = await database.sql<{ b: string; s: string; f: string }[]>`select wal_bytes::text as b, (select coalesce(sum(fsyncs),0)::text from pg_stat_io where object = 'wal') as s, wal_records::text as f from pg_stat_wal`;
  return { commits: Number(d!.c), walBytes: Number(w!.b), syncs: Number(w!.s), records: Number(w!.f) };
};
try {
  const { token } = await signedInOwner(database.sql);
  await createItems(server.url, token, 2, 10);
  for (const c of (process.env.PROBE_CONNS ?? '1,10,50').split(',').map(Number)) {
    const before = await stats();
    let samples = 0; let active = 0; let idleTx = 0; const waits = new Map<string, number>();
    let on = true;
    const sampling = (async () => { while (on) {
      const rows = await database.sql<{ state: string; w: string | null }[]>`select state, wait_event as w from pg_stat_activity where application_name like 'beckon-resource%' and pid <> pg_backend_pid()`;
      samples++; for (const r of rows) { if (r.state === 'active') { active++; waits.set(r.w ?? 'cpu', (waits.get(r.w ?? 'cpu') ?? 0) + 1); } if (r.state?.startsWith('idle in')) idleTx++; }
      await new Promise((res) => setTimeout(res, 5)); } })();
    const r = await createItems(server.url, token, 5, c);
    on = false; await sampling;
    console.log(`  avg active ${(active / samples).toFixed(2)}, idle in tx ${(idleTx / samples).toFixed(2)}; waits ${[...waits].map(([k, v]) => `${k}=${(v / samples).toFixed(2)}`).join(' ')}`);
    const after = await stats();
    const n = r.rps * 5;
    console.log(`${c} conns: ${r.rps} rps p50 ${r.p50} p99 ${r.p99}; per creation: commits ${((after.commits - before.commits) / n).toFixed(2)}, wal ${((after.walBytes - before.walBytes) / n).toFixed(0)} B, records ${((after.records - before.records) / n).toFixed(1)}, syncs/s ${((after.syncs - before.syncs) / 5).toFixed(0)}`);
  }
  if (process.env.BENCH_PG_STATEMENTS) {
    const rows = await database.sql<{ calls: string; ms: string; query: string }[]>`select calls::text, round(total_exec_time)::text as ms, regexp_replace(left(query, 90), '[[:space:]]+', ' ', 'g') as query from pg_stat_statements where toplevel order by calls desc limit 14`;
    for (const r of rows) console.log(`${r.calls}\t${r.ms}\t${r.query}`);
  }
} finally {
  await server.stop();
  await database.stop();
}
