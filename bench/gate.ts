import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'sdk/dist/cli.mjs');

type Stats = {
  name: string;
  runs: number;
  mean: number;
  median: number;
  p95: number;
  min: number;
  max: number;
  /** CPU time (user + system) of the runs, per run: what the command costs whatever the load. */
  cpu: number;
};

/** CPU time used by this process's ended children so far, in ms (Linux: clock ticks of 10 ms). */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** Runs a command `runs` times after `warmup` runs, hyperfine-like: wall time from spawn to exit. */
function measure(name: string, args: string[], input: string, runs: number, warmup = 3): Stats {
  const times: number[] = [];
  let cpuBefore = 0;
  for (let i = 0; i < warmup + runs; i++) {
    if (i === warmup) cpuBefore = childrenCpuMs();
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { input, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (run.status !== 0) throw new Error(`${name}: exit ${run.status}: ${run.stderr}`);
    if (i >= warmup) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] as number;
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  const cpu = (childrenCpuMs() - cpuBefore) / runs;
  return { name, runs, mean, median: at(0.5), p95: at(0.95), min: times[0] as number, max: at(1), cpu };
}

const row = (s: Stats) =>
  `| ${s.name} | ${s.runs} | ${[s.mean, s.median, s.p95, s.min, s.max, s.cpu].map((v) => v.toFixed(1)).join(' | ')} |`;

/**
 * `pnpm bench gate`: `beckon gate` (the built CLI, as npm installs it) deciding by an allow rule
 * and by a deny rule, nobody asked, from process start to its output; beside it a bare `node`
 * start and `beckon --version` (the rest of the CLI, which loads the tRPC client).
 */
export function gateDecisions(): string[] {
  const build = spawnSync(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', '--filter=@beckon/sdk', '--output-logs=errors-only'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (build.status !== 0) throw new Error(`the SDK build failed: ${build.stdout}${build.stderr}`);
  const runs = Number(process.env.BENCH_GATE_RUNS ?? 50);
  const dir = mkdtempSync(path.join(tmpdir(), 'beckon-gate-bench-'));
  try {
    const policy = {
      allow: ['Read', 'Bash(npm test*)', 'Bash(git status*)', 'Edit(src/**)'],
      deny: ['Bash(rm -rf *)', 'Read(./.env)'],
      ask: ['Bash(git push*)', 'mcp__*'],
    };
    writeFileSync(path.join(dir, 'gate.json'), JSON.stringify(policy));
    const event = (command: string) =>
      JSON.stringify({
        session_id: 'bench',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: 'toolu_bench',
        cwd: dir,
      });
    const gate = [CLI, 'gate', '--policy', path.join(dir, 'gate.json')];
    const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const loadBefore = load();
    const results = [
      measure('node -e 0 (process start alone)', ['-e', '0'], '', runs),
      measure('beckon gate: allow rule', gate, event('npm test -- --run'), runs),
      measure('beckon gate: deny rule', gate, event('cd / && rm -rf tmp'), runs),
      measure('beckon --version (loads the client)', [CLI, '--version'], '', runs),
    ];
    const allow = spawnSync(process.execPath, gate, { input: event('npm test'), encoding: 'utf8' }).stdout;
    if (!allow.includes('"permissionDecision":"allow"')) throw new Error(`unexpected decision: ${allow}`);
    return [
      `beckon gate, ${runs} runs each after 3 warm-up runs, Node ${process.version}, ${cpus().length} cores (ms):`,
      '| command | runs | mean | median | p95 | min | max | CPU per run |',
      '|---|---|---|---|---|---|---|---|',
      ...results.map(row),
      `machine load average (1, 5, 15 min): ${loadBefore} before, ${load()} after`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
