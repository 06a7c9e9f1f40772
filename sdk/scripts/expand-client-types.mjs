// Writes .generated/client.ts: the types the SDK imports from @beckon/contracts/client (the
// router of every procedure with its input and output, the error body) written out as plain types,
// so that the published declarations need neither the workspace's contracts package nor zod.
// `tsconfig.build.json` maps `@beckon/contracts/client` to the written file for the build only;
// typechecking and tests read the contracts themselves. Run by `pnpm build` before tsdown.
//
// Why the classic compiler (typescript-classic, TypeScript 5.9): TypeScript 7 (the catalog's
// `typescript`) has no stable type-checker API yet, and printing a type structurally needs one.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript-classic';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const probe = path.join(root, 'src/__probe.ts');
const target = path.join(root, '.generated/client.ts');

const PROBE_SOURCE = `
import type { AppRouter, ErrorBody, ErrorCode } from '@beckon/contracts/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;
export type Record_ = AppRouter['_def']['record'];
export type ErrorShape = AppRouter['_def']['_config']['$types']['errorShape'];
export type Body = ErrorBody;
export type Code = ErrorCode;
`;

const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
const host = ts.createCompilerHost(parsed.options);
const readFile = host.readFile.bind(host);
host.readFile = (file) => (path.resolve(file) === probe ? PROBE_SOURCE : readFile(file));
const fileExists = host.fileExists.bind(host);
host.fileExists = (file) => path.resolve(file) === probe || fileExists(file);
const program = ts.createProgram([probe], { ...parsed.options, noEmit: true }, host);
const checker = program.getTypeChecker();
const source = program.getSourceFile(probe);
if (!source) throw new Error('probe not compiled');

const diagnostics = ts.getPreEmitDiagnostics(program, source);
if (diagnostics.length) {
  throw new Error(ts.formatDiagnostics(diagnostics, { ...host, getNewLine: () => '\n' }));
}

const aliases = Object.fromEntries(
  source.statements.filter(ts.isTypeAliasDeclaration).map((decl) => [decl.name.text, decl]),
);
const typeOf = (name) => checker.getTypeAtLocation(aliases[name].name);
const propertyType = (type, name) => {
  const symbol = checker.getPropertyOfType(type, name);
  if (!symbol) throw new Error(`no property ${name}`);
  return checker.getTypeOfSymbol(symbol);
};

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const indent = (depth) => '  '.repeat(depth);
const F = ts.TypeFlags;

/** A type written out in full: primitives, literals, unions, arrays, tuples and object shapes. */
function print(type, depth, seen) {
  const f = type.flags;
  if (f & F.Any) return 'any';
  if (f & F.Unknown) return 'unknown';
  if (f & F.Never) return 'never';
  if (f & F.Void) return 'void';
  if (f & F.Undefined) return 'undefined';
  if (f & F.Null) return 'null';
  if (f & F.String) return 'string';
  if (f & F.Number) return 'number';
  if (f & F.BigInt) return 'bigint';
  if (f & F.Boolean) return 'boolean';
  if (f & F.BooleanLiteral) return checker.typeToString(type);
  if (f & F.StringLiteral) return JSON.stringify(type.value);
  if (f & F.NumberLiteral) return String(type.value);
  if (f & F.TemplateLiteral) return checker.typeToString(type);
  if (seen.includes(type)) throw new Error(`recursive type: ${checker.typeToString(type)}`);
  const next = [...seen, type];
  if (type.isUnion()) {
    const parts = type.types.map((t) => print(t, depth, next));
    // `true | false` is how the checker stores boolean inside a union.
    const bools = parts.filter((p) => p === 'true' || p === 'false');
    const rest = parts.filter((p) => p !== 'true' && p !== 'false');
    if (bools.length === 2) rest.push('boolean');
    else rest.push(...bools);
    return [...new Set(rest)].join(' | ');
  }
  if (type.isIntersection()) return type.types.map((t) => wrap(print(t, depth, next))).join(' & ');
  if (checker.isTupleType(type)) {
    return `[${checker
      .getTypeArguments(type)
      .map((t) => print(t, depth, next))
      .join(', ')}]`;
  }
  if (checker.isArrayType(type)) return `Array<${print(checker.getTypeArguments(type)[0], depth, next)}>`;
  if (type.symbol?.name === 'Date') return 'Date';
  if (f & F.Object) return printObject(type, depth, next);
  throw new Error(`cannot write type ${checker.typeToString(type)}`);
}

const wrap = (text) => (text.includes(' | ') ? `(${text})` : text);

function printObject(type, depth, seen) {
  if (type.getCallSignatures().length) throw new Error(`function type: ${checker.typeToString(type)}`);
  const lines = [];
  for (const info of checker.getIndexInfosOfType(type)) {
    lines.push(`[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, depth + 1, seen)};`);
  }
  for (const symbol of checker.getPropertiesOfType(type)) {
    const optional = (symbol.flags & ts.SymbolFlags.Optional) !== 0;
    const propType = checker.getTypeOfSymbol(symbol);
    // An optional property's `| undefined` is implied by its `?`.
    if (optional && propType.isUnion()) {
      const kept = propType.types.filter((t) => !(t.flags & F.Undefined));
      if (kept.length !== propType.types.length) {
        const text = kept.length ? kept.map((t) => print(t, depth + 1, seen)) : ['undefined'];
        lines.push(`${key(symbol.name)}?: ${joinUnion(text)};`);
        continue;
      }
    }
    lines.push(`${key(symbol.name)}${optional ? '?' : ''}: ${print(propType, depth + 1, seen)};`);
  }
  if (!lines.length) return '{}';
  return `{\n${lines.map((l) => `${indent(depth + 1)}${l}`).join('\n')}\n${indent(depth)}}`;
}

function joinUnion(parts) {
  const bools = parts.filter((p) => p === 'true' || p === 'false');
  const rest = parts.filter((p) => p !== 'true' && p !== 'false');
  if (bools.length === 2) rest.push('boolean');
  else rest.push(...bools);
  return [...new Set(rest)].join(' | ');
}

/** The router's tree: each procedure as tRPC's procedure type, each sub-router as an object. */
function printRecord(record, inputs, outputs, depth) {
  const lines = [];
  for (const symbol of checker.getPropertiesOfType(record)) {
    const name = symbol.name;
    const entry = checker.getTypeOfSymbol(symbol);
    const input = propertyType(inputs, name);
    const output = propertyType(outputs, name);
    const def = checker.getPropertyOfType(entry, '_def');
    if (def) {
      const kind = checker.typeToString(propertyType(checker.getTypeOfSymbol(def), 'type'));
      const procedure = kind === '"query"' ? 'TRPCQueryProcedure' : 'TRPCMutationProcedure';
      lines.push(
        `${key(name)}: ${procedure}<{\n` +
          `${indent(depth + 2)}input: ${print(input, depth + 2, [])};\n` +
          `${indent(depth + 2)}output: ${print(output, depth + 2, [])};\n` +
          `${indent(depth + 2)}meta: object;\n${indent(depth + 1)}}>;`,
      );
    } else {
      lines.push(`${key(name)}: ${printRecord(entry, input, output, depth + 1)};`);
    }
  }
  return `{\n${lines.map((l) => `${indent(depth + 1)}${l}`).join('\n')}\n${indent(depth)}}`;
}

const text = `// Generated by scripts/expand-client-types.mjs from @beckon/contracts/client, for the build.
import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';

/** The shape of a tRPC error answer (its \`data\` carries the REST status and body). */
type ErrorShape = ${print(typeOf('ErrorShape'), 0, [])};

/** Every procedure of the resource server: its kind, input and (JSON) output. */
export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: ErrorShape; transformer: false },
  ${printRecord(typeOf('Record_'), typeOf('Inputs'), typeOf('Outputs'), 1)}
>;

/** An error answer's body: \`error\`, plus fields that depend on the status. */
export type ErrorBody = ${print(typeOf('Body'), 0, [])};
export type ErrorCode = ${print(typeOf('Code'), 0, [])};
`;
// Written only when it changed, and atomically: tests may be compiling the sources meanwhile.
mkdirSync(path.dirname(target), { recursive: true });
if (existsSync(target) && readFileSync(target, 'utf8') === text) {
  console.log(`${path.relative(process.cwd(), target)} is up to date`);
} else {
  writeFileSync(`${target}.tmp`, text);
  renameSync(`${target}.tmp`, target);
  console.log(`wrote ${path.relative(process.cwd(), target)} (${text.split('\n').length} lines)`);
}
