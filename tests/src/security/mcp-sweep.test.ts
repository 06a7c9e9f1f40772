import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { AGENT_PERMISSIONS } from '@beckon/contracts/permissions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness';
import { ownerKey } from './principals';
import { CHALLENGE, inPool } from './targets';
import { FORM, idsIn, make, snapshot, type Tenant, tenant } from './tenants';

/**
 * The security sweep over the agent interface: every tool that `tools/list` announces, called
 * with raw JSON-RPC over POST /mcp. Arguments are built from each tool's own input schema.
 */

type Schema = {
  type?: string;
  format?: string;
  minimum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
};
type Tool = { name: string; inputSchema: Schema };
type RpcAnswer = {
  status: number;
  headers: Headers;
  text: string;
  result?: { content: Array<{ text: string }>; isError?: boolean };
  error?: { code: number; message: string; data?: { error?: string; required?: string } };
};

/** Objects no schema can make up: the one argument whose valid value needs knowing the domain. */
const OBJECT_ARGUMENTS: Record<string, unknown> = { form: FORM };
/** What a schema cannot say either: an update changes at least one field (the control proves it). */
const EXTRA_ARGUMENTS: Record<string, Record<string, unknown>> = { 'service.update': { title: 'changed' } };

/** The smallest valid arguments: each required property, from its JSON Schema type and format. */
function argumentsFor(tool: Tool, id: string): Record<string, unknown> {
  const args: Record<string, unknown> = { ...EXTRA_ARGUMENTS[tool.name] };
  for (const name of tool.inputSchema.required ?? []) {
    const property = tool.inputSchema.properties?.[name] ?? {};
    if (property.format === 'uuid') args[name] = id;
    else if (property.format === 'date-time') args[name] = new Date(Date.now() + 3_600_000).toISOString();
    else if (property.type === 'string') args[name] = 'sweep';
    else if (property.type === 'integer' || property.type === 'number') args[name] = property.minimum ?? 0;
    else if (property.type === 'boolean') args[name] = false;
    else if (name in OBJECT_ARGUMENTS) args[name] = OBJECT_ARGUMENTS[name];
    else throw new Error(`${tool.name}: no sample for the argument ${name}: add it to OBJECT_ARGUMENTS`);
  }
  return args;
}

let server: TestServer;
let a: Tenant;
let b: Tenant;
let tools: Tool[];
let nextId = 1;

async function rpc(token: string | null, method: string, params: unknown): Promise<RpcAnswer> {
  const res = await server.resource
    .as(token)
    .post(
      '/mcp',
      { jsonrpc: '2.0', id: nextId++, method, params },
      { headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' } },
    );
  const body = (typeof res.body === 'object' ? res.body : {}) as Pick<RpcAnswer, 'result' | 'error'>;
  return { status: res.status, headers: res.headers, text: res.text, ...body };
}
const callTool = (token: string | null, tool: Tool, args: Record<string, unknown>) =>
  rpc(token, 'tools/call', { name: tool.name, arguments: args });
const show = (r: RpcAnswer) => `${r.status} ${r.text.slice(0, 200)}`;

/** An API key of a member of `t` whose role holds exactly `permissions`. */
async function keyWith(t: Tenant, permissions: string[]) {
  const [role] = await t.sql<{ id: string }[]>`
    insert into roles (id, org_id, name, permissions)
    values (${randomUUID()}, ${t.id}, ${`mcp ${randomUUID()}`}, ${permissions}) returning id`;
  const user = await t.factories.user();
  await t.factories.member(t.id, user.id, { id: role!.id });
  return (await t.factories.apiKey(t.id, user.id)).token;
}

beforeAll(async () => {
  server = await startTestServer();
  a = await tenant(server);
  b = await tenant(server);
  const listed = await rpc((await ownerKey(a)).token, 'tools/list', {});
  tools = (listed.result as unknown as { tools: Tool[] }).tools;
});
afterAll(() => server?.close());

describe('security sweep over MCP', () => {
  it('lists the eleven tools (the eight of the specification, service.get and the two of the gate)', () => {
    expect(new Set(tools.map((t) => t.name)).size).toBe(11);
  });

  it('answers 401 with the challenge to every call without a valid token', async () => {
    const cases = tools.flatMap((tool) => [null, 'not-a-token'].map((token) => ({ tool, token })));
    const answers = await inPool(cases, 4, ({ tool, token }) =>
      callTool(token, tool, argumentsFor(tool, randomUUID())),
    );
    const problems = cases.flatMap(({ tool, token }, i) => {
      const res = answers[i]!;
      const ok = res.status === 401 && res.headers.get('www-authenticate') === CHALLENGE;
      return ok ? [] : [`${tool.name} ${token ? 'with an unknown token' : 'without a token'}: ${show(res)}`];
    });
    expect(problems).toEqual([]);
  });

  it("refuses a key whose owner's role lacks the item permission (-32003 naming it), and lets one with it through", async () => {
    const none = await keyWith(a, []);
    const problems: string[] = [];
    const required = new Set<string>();
    for (const tool of tools) {
      const denied = await callTool(none, tool, argumentsFor(tool, randomUUID()));
      const permission = denied.error?.data?.required ?? '';
      if (denied.error?.code !== -32003 || denied.error.data?.error !== 'permission denied') {
        problems.push(`${tool.name} for a key without permissions: ${show(denied)}`);
        continue;
      }
      required.add(permission);
      if (!(AGENT_PERMISSIONS as readonly string[]).includes(permission)) {
        problems.push(`${tool.name} requires ${permission}, which no agent key can hold`);
      }
      const allowed = await callTool(await keyWith(a, [permission]), tool, argumentsFor(tool, randomUUID()));
      if (allowed.error?.code === -32003 || allowed.error?.code === -32001 || allowed.status !== 200) {
        problems.push(`${tool.name} with exactly ${permission}: ${show(allowed)}; expected past the check`);
      }
    }
    expect(problems).toEqual([]);
    expect([...required].sort()).toEqual(['items.read', 'items.write']);
  });

  it("answers not found to another organization's item id (and to another agent's, for a restricted key), changing nothing", async () => {
    const withId = tools.filter((t) => t.inputSchema.properties?.id?.format === 'uuid');
    expect(withId.length).toBeGreaterThanOrEqual(5);
    const problems: string[] = [];
    const check = async (token: string, victim: Tenant, who: string, control: boolean) => {
      for (const tool of withId) {
        const theirs = await make('item', victim, {});
        const before = await snapshot(victim.sql, victim.id);
        const res = await callTool(token, tool, argumentsFor(tool, theirs));
        const after = await snapshot(victim.sql, victim.id);
        if (res.error?.code !== -32004 || res.error.data?.error !== 'not found') {
          problems.push(`${tool.name} with ${who}: ${show(res)}; expected -32004 not found`);
        }
        const changed = Object.keys(after).filter((table) => !isDeepStrictEqual(before[table], after[table]));
        if (changed.length > 0) problems.push(`${tool.name} with ${who}: changed ${changed.join(', ')}`);
        if (!control) continue;
        // The same arguments on an item of the caller's own organization do work.
        const own = await callTool(token, tool, argumentsFor(tool, await make('item', a, {})));
        if (own.error || own.result?.isError) problems.push(`${tool.name} on its own item: ${show(own)}`);
      }
    };
    await check((await ownerKey(a)).token, b, "another organization's item", true);
    await check(
      (await ownerKey(a, 'own')).token,
      a,
      'an item its agent did not create (item_access: own)',
      false,
    );
    expect(problems).toEqual([]);
  });

  it("lists none of another organization's items", async () => {
    await make('item', b, {});
    const ids = idsIn(await snapshot(b.sql, b.id));
    const list = tools.find((t) => t.name === 'service.list')!;
    const res = await callTool((await ownerKey(a)).token, list, {
      include_archived: true,
      include_snoozed: true,
    });
    expect(res.result?.isError).toBeFalsy();
    expect([...ids].filter((id) => res.text.includes(id))).toEqual([]);
  });

  it("tasks need items.read, and another organization's task is not found", async () => {
    const writeOnly = await keyWith(a, ['items.write']);
    const ask = { name: 'service.ask', arguments: { title: 'sweep', form: FORM }, task: {} };
    const created = await rpc(writeOnly, 'tools/call', ask);
    const taskId = (created.result as unknown as { task: { taskId: string } }).task.taskId;
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/result', { taskId }],
      ['tasks/cancel', { taskId }],
      ['tasks/list', {}],
    ] as const) {
      const denied = await rpc(writeOnly, method, params);
      expect(denied.error, method).toMatchObject({ code: -32003, data: { required: 'items.read' } });
    }
    const theirs = await rpc((await ownerKey(b)).token, 'tasks/get', { taskId });
    expect(theirs.error).toMatchObject({ code: -32602, message: `task not found: ${taskId}` });
  });
});
