import { createHash } from 'node:crypto';
import { canonicalize } from '@beckon/contracts/proofs/jcs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, statelessRequest, type TestServer } from '../harness';

/**
 * An agent that asks over MCP gets the decision's receipt in the tool result (the item, as every
 * channel shows it) and checks it with `jose` against the organization's published keys.
 */

let server: TestServer;
let factories: Factories;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  factories = new Factories(server.database.db);
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await server?.close();
});

const FORM = { id: 'go', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };
type Item = { id: string; status: string; receipt: string | null; answered_at: string | null };
type ToolResult = { content: Array<{ type: string; text?: string }>; structuredContent?: unknown };

async function agentAccount() {
  const account = await factories.account('owner');
  const key = await factories.apiKey(account.org.id, account.user.id);
  const colleague = await factories.user();
  await factories.member(account.org.id, colleague.id, 'member');
  const person = server.resource.as((await factories.session(colleague.id, account.org.id)).token);
  return { orgId: account.org.id, userId: account.user.id, key: key.token, person, colleague };
}

/** The receipt's claims, verified with jose against GET /.well-known/jwks.json. */
async function verifiedClaims(receipt: string | null | undefined, orgId: string) {
  const jwks = (await server.resource.get<JSONWebKeySet>(`/.well-known/jwks.json?org_id=${orgId}`)).body;
  const { payload } = await jwtVerify(receipt ?? '', createLocalJWKSet(jwks), {
    issuer: 'http://localhost:3000',
    typ: 'beckon-receipt+jwt',
    algorithms: ['EdDSA'],
  });
  return payload;
}

const digestOf = (values: Record<string, unknown>) =>
  createHash('sha256').update(canonicalize(values)).digest('hex');

/** Until the waiting tool call listens for its item's outcome. */
async function untilWaiting() {
  while (!server.deps.events?.subscriberCount) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function answerOpenItem(person: HttpClient, values: Record<string, unknown>) {
  const [item] = (await person.get<{ items: Item[] }>('/api/items?status=open')).body.items;
  expect((await person.post(`/api/items/${item?.id}/answer`, { values })).status).toBe(200);
}

describe('receipts in MCP tool results', () => {
  it('service.ask with wait_seconds (2025-11-25): the answered item carries a receipt that verifies', async () => {
    const { orgId, key, person, colleague } = await agentAccount();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.resource.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'beckon-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);

    const call = client.callTool({
      name: 'service.ask',
      arguments: { title: 'Ship it?', form: FORM, wait_seconds: 50 },
    });
    await untilWaiting();
    await answerOpenItem(person, { ok: true });
    const result = (await call) as ToolResult;
    const item = result.structuredContent as Item;
    expect(item.status).toBe('answered');
    // The text content is the same item, receipt included.
    expect(JSON.parse(result.content[0]?.text ?? '{}')).toMatchObject({ receipt: item.receipt });
    expect(await verifiedClaims(item.receipt, orgId)).toMatchObject({
      org_id: orgId,
      item_id: item.id,
      outcome: 'answered',
      response_digest: digestOf({ ok: true }),
      decided_by: { type: 'user', id: colleague.id },
      decided_at: item.answered_at,
    });
    // Changed on the way, it no longer verifies.
    const [header, payload, signature] = (item.receipt ?? '').split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, outcome: 'dismissed' })).toString('base64url');
    await expect(verifiedClaims(`${header}.${forged}.${signature}`, orgId)).rejects.toThrow();
  });

  it('tasks/get at 2026-07-28: the completed task’s result carries the receipt', async () => {
    const { orgId, key, person } = await agentAccount();
    const rpc = (method: string, params: Record<string, unknown>) =>
      statelessRequest(server.resource.baseUrl, key, method, params, { tasks: true });
    const asked = await rpc('tools/call', {
      name: 'service_ask',
      arguments: { title: 'Ship it?', form: FORM },
    });
    const taskId = asked.body.result?.taskId as string;
    expect(asked.body.result).toMatchObject({ resultType: 'task', status: 'working' });
    await answerOpenItem(person, { ok: false });

    const done = await rpc('tasks/get', { taskId });
    expect(done.body.result).toMatchObject({ status: 'completed' });
    const item = (done.body.result?.result as { structuredContent?: Item } | undefined)?.structuredContent;
    expect(await verifiedClaims(item?.receipt, orgId)).toMatchObject({
      item_id: item?.id,
      outcome: 'answered',
      response_digest: digestOf({ ok: false }),
    });
  });

  it('answered in the chat by form elicitation: the result carries the receipt of the requester’s answer', async () => {
    const { orgId, userId, key } = await agentAccount();
    const ask = { name: 'service_ask', arguments: { title: 'Ship it?', form: FORM, ask_requester: true } };
    const rpc = (params: Record<string, unknown>) =>
      statelessRequest(server.resource.baseUrl, key, 'tools/call', params, { elicitation: { form: {} } });
    const asked = (await rpc(ask)).body.result;
    expect(asked).toMatchObject({ resultType: 'input_required' });
    const answered = await rpc({
      ...ask,
      requestState: asked?.requestState,
      inputResponses: { answer: { action: 'accept', content: { ok: true } } },
    });
    const item = answered.body.result?.structuredContent as Item;
    expect(await verifiedClaims(item.receipt, orgId)).toMatchObject({
      item_id: item.id,
      outcome: 'answered',
      decided_by: { type: 'user', id: userId },
      answered_via: 'mcp',
    });
  });
});
