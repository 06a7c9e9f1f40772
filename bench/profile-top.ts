/**
 * `pnpm tsx bench/profile-top.ts <file> [top] [skip seconds]`: the frames that take the most of a
 * V8 CPU profile (`BENCH_CPU_PROF`, `.cpuprofile`) or a sampling heap profile (`BENCH_HEAP_PROF`,
 * `.heapprofile`): self and inclusive, in percent of the whole. A CPU profile counts its busy
 * samples only (idle left out) from `skip` seconds after it starts, to leave the process's start
 * out; a heap profile has no times and covers the process's whole life.
 */
import { readFileSync } from 'node:fs';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type HeapNode = { callFrame: CallFrame; selfSize: number; children: HeapNode[] };
type CpuNode = { id: number; callFrame: CallFrame; children?: number[] };
type CpuProfile = { nodes: CpuNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

/** `function package/file:line`, short enough to read. */
const frameName = ({ functionName, url, lineNumber }: CallFrame) =>
  `${functionName || '(anonymous)'} ${url.split('/node_modules/').pop()!.split('/').slice(-2).join('/')}:${lineNumber}`;

/** Self and inclusive weight of each frame, from weighted call stacks (innermost frame last). */
function tally(stacks: Iterable<[CallFrame[], number]>) {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const [stack, weight] of stacks) {
    if (stack.length === 0 || weight === 0) continue;
    total += weight;
    const leaf = frameName(stack.at(-1)!);
    self.set(leaf, (self.get(leaf) ?? 0) + weight);
    // A frame counted once per stack, however often it recurses.
    for (const name of new Set(stack.map(frameName)))
      inclusive.set(name, (inclusive.get(name) ?? 0) + weight);
  }
  return { self, inclusive, total };
}

function* heapStacks(node: HeapNode, stack: CallFrame[] = []): Generator<[CallFrame[], number]> {
  const here = node.callFrame.functionName === '(root)' ? stack : [...stack, node.callFrame];
  yield [here, node.selfSize];
  for (const child of node.children) yield* heapStacks(child, here);
}

function* cpuStacks(profile: CpuProfile, skipSeconds: number): Generator<[CallFrame[], number]> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackOf = (id: number) => {
    const stack: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      stack.unshift(byId.get(at)!.callFrame);
    return stack.filter((frame) => frame.functionName !== '(root)');
  };
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    const stack = stackOf(profile.samples[i]!);
    if (time - profile.startTime < skipSeconds * 1e6 || stack[0]?.functionName === '(idle)') continue;
    yield [stack, profile.timeDeltas[i + 1] ?? 0];
  }
}

const [file, top = '30', skip = '0'] = process.argv.slice(2);
if (!file)
  throw new Error(
    'usage: pnpm tsx bench/profile-top.ts <file.cpuprofile|file.heapprofile> [top] [skip seconds]',
  );
const profile = JSON.parse(readFileSync(file, 'utf8'));
const { self, inclusive, total } =
  'head' in profile ? tally(heapStacks(profile.head)) : tally(cpuStacks(profile, Number(skip)));
const unit =
  'head' in profile ? `${(total / 2 ** 20).toFixed(0)} MiB allocated` : `${(total / 1e6).toFixed(1)} s busy`;
for (const [title, weights] of [
  ['self', self],
  ['inclusive', inclusive],
] as const) {
  console.log(`${title} (of ${unit}):`);
  for (const [name, weight] of [...weights].sort((a, b) => b[1] - a[1]).slice(0, Number(top)))
    console.log(`${((weight / total) * 100).toFixed(1).padStart(6)} %  ${name}`);
}
