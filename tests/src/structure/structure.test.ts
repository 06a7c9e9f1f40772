import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const PACKAGES = ['contracts/src', 'server/src', 'web/src', 'sdk/src', 'db/src', 'mcp/src', 'tests/src'];
const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The relative imports of a file (type-only ones too: a type cycle is a cycle to a reader). */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const [, spec] of text.matchAll(/(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gs)) {
    const base = path.resolve(path.dirname(file), spec as string);
    const target = [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find(existsSync);
    if (target) found.push(target);
  }
  return found;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const serverFiles = sourceFiles(path.join(root, 'server/src')).filter((f) => !f.endsWith('.test.ts'));
const fileGraph = new Map(serverFiles.map((file) => [file, imports(file)]));
const relative = (file: string) => path.relative(path.join(root, 'server/src'), file);

/** The package imports of a file (`@beckon/contracts/x`, `zod`...), type-only ones included. */
function packageImports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(import|export)(\s+type)?\s[^;]*?from\s+'([^.'][^']*)'/gs)].map((m) => ({
    spec: m[3] as string,
    typeOnly: m[2] !== undefined,
  }));
}
const nonTest = (dir: string) => sourceFiles(path.join(root, dir)).filter((f) => !/\.test\.tsx?$/.test(f));

describe('the structure of the code', () => {
  it('has no import cycle between server files', () => {
    expect(cycles(fileGraph).map((c) => c.map(relative))).toEqual([]);
  });

  it('has no import cycle between domain modules (server/src/modules/<domain>)', () => {
    const moduleOf = (file: string) => /^modules\/([^/]+)\//.exec(relative(file))?.[1];
    const graph = new Map<string, string[]>();
    for (const [file, targets] of fileGraph) {
      const from = moduleOf(file);
      if (!from) continue;
      const to = targets.map(moduleOf).filter((m): m is string => m !== undefined && m !== from);
      graph.set(from, [...new Set([...(graph.get(from) ?? []), ...to])]);
    }
    expect(cycles(graph)).toEqual([]);
  });

  it(`keeps source files under ${MAX_LINES} lines, unless a note in the file says why`, () => {
    const long = PACKAGES.flatMap((dir) => sourceFiles(path.join(root, dir)))
      .filter((file) => {
        const text = readFileSync(file, 'utf8');
        return text.split('\n').length > MAX_LINES && !text.includes(`Longer than ${MAX_LINES} lines:`);
      })
      .map((file) => path.relative(root, file));
    expect(long).toEqual([]);
  });

  it('has no import cycle between contract files', () => {
    const contracts = nonTest('contracts/src');
    const graph = new Map(contracts.map((file) => [file, imports(file)]));
    expect(cycles(graph).map((c) => c.map((f) => path.relative(root, f)))).toEqual([]);
  });

  it('keeps the contracts free of the other packages: zod, and types of tRPC and trpc-to-openapi', () => {
    const allowed = (i: { spec: string; typeOnly: boolean }) =>
      i.spec === 'zod' || (i.typeOnly && ['@trpc/server', 'trpc-to-openapi'].includes(i.spec));
    const foreign = nonTest('contracts/src').flatMap((file) =>
      packageImports(file)
        .filter((i) => !allowed(i))
        .map((i) => `${path.relative(root, file)}: ${i.spec}`),
    );
    expect(foreign).toEqual([]);
  });

  it("lets the dashboard import no server file, and the SDK library only the contracts' client types", () => {
    const web = nonTest('web/src').flatMap((file) =>
      packageImports(file)
        .filter((i) => /^@beckon\/(server|db)(\/|$)/.test(i.spec))
        .map((i) => `${path.relative(root, file)}: ${i.spec}`),
    );
    expect(web).toEqual([]);
    // The SDK's build maps @beckon/contracts/client to plain types (sdk/tsconfig.build.json) and
    // @beckon/contracts/proofs/* to a copy of those dependency-free files (JCS, digests); the
    // CLI, which publishes no declarations, may bundle any contract. The framework adapters import
    // the package's own entry (@beckon/sdk), which their build leaves an import.
    const library = nonTest('sdk/src').filter((file) => !file.includes(`${path.sep}cli${path.sep}`));
    const sdk = library.flatMap((file) =>
      packageImports(file)
        .filter(
          (i) =>
            i.spec.startsWith('@beckon/') &&
            i.spec !== '@beckon/sdk' &&
            !(i.spec === '@beckon/contracts/client' && i.typeOnly) &&
            !i.spec.startsWith('@beckon/contracts/proofs/'),
        )
        .map((i) => `${path.relative(root, file)}: ${i.spec}`),
    );
    expect(sdk).toEqual([]);
    // What the SDK bundles from the contracts stays free of any package.
    const proofs = nonTest('contracts/src/proofs').flatMap((file) =>
      packageImports(file).map((i) => `${path.relative(root, file)}: ${i.spec}`),
    );
    expect(proofs).toEqual([]);
  });

  it('keeps modules/items in its layout: routers at the root, operations named verb-noun', () => {
    const items = path.join(root, 'server/src/modules/items');
    // Split by what changes together (docs/architecture.md, Layout); a new verb joins the list.
    const layout = ['changes', 'forms', 'operations', 'rows', 'state'];
    const verbs = ['act', 'answer', 'assign', 'comment', 'create', 'read', 'update'];
    const entries = readdirSync(items, { withFileTypes: true });
    expect(
      entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort(),
    ).toEqual(layout);
    expect(entries.filter((e) => e.isFile() && !/(^|-)router\.ts$/.test(e.name)).map((e) => e.name)).toEqual(
      [],
    );
    const operations = readdirSync(path.join(items, 'operations')).filter(
      (name) => !name.endsWith('.test.ts'),
    );
    const misnamed = operations.filter(
      (name) => !new RegExp(`^(${verbs.join('|')})-[a-z]+(-[a-z]+)*\\.ts$`).test(name),
    );
    expect(misnamed).toEqual([]);
  });
});
