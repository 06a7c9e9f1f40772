/**
 * The query rule of a schema distributed by organization (docs/deployment.md, "Statements and
 * the organization"): a statement that reads or writes a distributed table names the
 * organization for it, so Citus can route it to one node. Here, for each distributed table a
 * statement refers to, that means one of:
 * - an equality on its distribution column (`org_id`; `id` for `organizations`) with a
 *   parameter, a constant, a sub-select, or a column of a common table expression;
 * - an equality with the distribution column of another table of the statement that has one
 *   (a co-located join: `d.org_id = q.org_id`);
 * - for an INSERT, the distribution column among the columns inserted.
 *
 * The parse is deliberately simple (tokens, parentheses, `from`/`join`/`update`/`into`/`using`):
 * it reads the statements as PostgreSQL's statistics normalize them, where constants are `$n`.
 * Statements that may cross organizations are listed in cross-org-statements.ts, with why.
 */
import { distributionColumn, TABLE_DISTRIBUTION, type TablePlacement } from './distribution';

/** Lower case, without comments, double quotes, casts or the `public.` schema, on one line. */
export function normalizeStatement(text: string): string {
  return text
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''")
    .replaceAll('"', '')
    .toLowerCase()
    .replace(/::\s*[a-z_][\w]*(\s*\[\])?/g, '')
    .replace(/\bpublic\./g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

const TOKEN = /\$\d+|''|[a-z_][\w$]*(?:\.(?:[a-z_][\w$]*|\*))*|\d+(?:\.\d+)?|<=|>=|<>|!=|=>|:=|[=(),;]|\S/g;
const TABLE_KEYWORDS = new Set(['from', 'join', 'update', 'into', 'using']);
const QUERY_STARTS = new Set(['select', 'with', 'insert', 'update', 'delete', 'values']);
/** Words that end a table reference rather than name its alias. */
const NOT_ALIASES = new Set(
  'where set on join left right inner outer full cross natural lateral using order group limit offset returning values select for union except intersect having window fetch do default as and or'.split(
    ' ',
  ),
);

type Ref = { table: string; alias: string; column: string; scope: number; insertColumns?: string[] };
type Side = { kind: 'value' } | { kind: 'column'; alias: string | null; column: string; scope: number };

/** Each token's query scope: the innermost parenthesis holding a sub-query (0: the statement). */
function queryScopes(tokens: string[]): number[] {
  const scopes: number[] = [];
  const stack: number[] = [0];
  let next = 1;
  for (const [at, token] of tokens.entries()) {
    if (token === '(') stack.push(QUERY_STARTS.has(tokens[at + 1] ?? '') ? next++ : (stack.at(-1) ?? 0));
    scopes.push(stack.at(-1) ?? 0);
    if (token === ')' && stack.length > 1) stack.pop();
  }
  return scopes;
}

/** Names defined by `with name as (...)` (and the following `, name as (...)`). */
function cteNames(tokens: string[]): Set<string> {
  const names = new Set<string>();
  for (let at = 1; at + 2 < tokens.length; at++) {
    const before = tokens[at - 1];
    if (before !== 'with' && before !== ',' && before !== 'recursive') continue;
    const after = tokens.slice(at + 1, at + 5);
    const opens = after[0] === 'as' && (after[1] === '(' || after.slice(1).includes('materialized'));
    if (opens) names.add(tokens[at] ?? '');
  }
  return names;
}

function tableRefs(tokens: string[], scopes: number[], placed: Map<string, TablePlacement>): Ref[] {
  const ctes = cteNames(tokens);
  const refs: Ref[] = [];
  for (let at = 0; at < tokens.length; at++) {
    const keyword = tokens[at] ?? '';
    if (!TABLE_KEYWORDS.has(keyword)) continue;
    let cursor = at + 1;
    for (;;) {
      const table = tokens[cursor] ?? '';
      const placement = placed.get(table);
      let alias = table;
      let after = cursor + 1;
      if (tokens[after] === 'as') after++;
      const candidate = tokens[after] ?? '';
      if (/^[a-z_]\w*$/.test(candidate) && !NOT_ALIASES.has(candidate)) {
        alias = candidate;
        after++;
      }
      if (placement?.class === 'distributed' && !ctes.has(table)) {
        const ref: Ref = { table, alias, column: distributionColumn(placement), scope: scopes[cursor] ?? 0 };
        if (keyword === 'into' && tokens[after] === '(') {
          const close = tokens.indexOf(')', after);
          ref.insertColumns = tokens.slice(after + 1, close).filter((token) => token !== ',');
        }
        refs.push(ref);
      }
      // `from a x, b y`: a list of tables
      if (
        (keyword === 'from' || keyword === 'using') &&
        tokens[after] === ',' &&
        placed.has(tokens[after + 1] ?? '')
      ) {
        cursor = after + 1;
        continue;
      }
      break;
    }
  }
  return refs;
}

function side(tokens: string[], at: number, scope: number, before: boolean): Side {
  const token = tokens[at] ?? '';
  if (!before && (token === 'any' || token === 'all'))
    return { kind: 'column', alias: '', column: '', scope };
  const match = /^(?:([a-z_][\w$]*)\.)?([a-z_][\w$]*)$/.exec(token);
  const isCall = !before && tokens[at + 1] === '(';
  if (!match || isCall || match[2] === 'null' || match[2] === 'true' || match[2] === 'false')
    return { kind: 'value' };
  return { kind: 'column', alias: match[1] ?? null, column: match[2] ?? '', scope };
}

const sideOf = (ref: Ref, s: Side) =>
  s.kind === 'column' &&
  s.column === ref.column &&
  (s.alias === ref.alias || (s.alias === null && s.scope === ref.scope));

/**
 * The distributed tables a statement refers to without naming the organization for them (with
 * `all`, every distributed table it refers to).
 */
export function unroutedTables(
  statement: string,
  placements: readonly TablePlacement[] = TABLE_DISTRIBUTION,
  options: { all?: boolean } = {},
): string[] {
  const tokens = normalizeStatement(statement).match(TOKEN) ?? [];
  const scopes = queryScopes(tokens);
  const placed = new Map(placements.map((placement) => [placement.table, placement]));
  const refs = tableRefs(tokens, scopes, placed);
  if (refs.length === 0 || options.all) return [...new Set(refs.map((ref) => ref.table))].sort();
  const aliases = new Set(refs.map((ref) => ref.alias));
  const equalities: [Side, Side][] = [];
  // `set a = $1` assigns: the scopes inside an UPDATE's (or ON CONFLICT's) SET list
  const assigning = new Set<number>();
  for (const [at, token] of tokens.entries()) {
    const scope = scopes[at] ?? 0;
    if (token === 'set') assigning.add(scope);
    else if (token === 'where' || token === 'from' || token === 'returning') assigning.delete(scope);
    if (token !== '=' || assigning.has(scope)) continue;
    equalities.push([side(tokens, at - 1, scope, true), side(tokens, at + 1, scope, false)]);
  }
  const routed = new Set<Ref>(refs.filter((ref) => ref.insertColumns?.includes(ref.column)));
  // A column of no distributed table of the statement: a CTE's or a VALUES list's, a value here.
  const isValue = (s: Side) =>
    s.kind === 'value' || (s.alias !== null && s.alias !== '' && !aliases.has(s.alias) && s.column !== '');
  for (let changed = true; changed; ) {
    changed = false;
    for (const ref of refs) {
      if (routed.has(ref)) continue;
      const pinned = equalities.some(([a, b]) =>
        [
          [a, b],
          [b, a],
        ].some(
          ([mine, other]) =>
            mine &&
            other &&
            sideOf(ref, mine) &&
            (isValue(other) || [...routed].some((r) => sideOf(r, other))),
        ),
      );
      if (pinned) {
        routed.add(ref);
        changed = true;
      }
    }
  }
  return [...new Set(refs.filter((ref) => !routed.has(ref)).map((ref) => ref.table))].sort();
}
