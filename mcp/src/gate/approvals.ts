import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { version } from '../../package.json';

/** A person's decision on a held call; `reason` is what the model reads when it is refused. */
export type Decision = { allow: boolean; reason: string };

export type AskOptions = {
  rule: string;
  title: string;
  message: string;
  priority: number;
  timeoutSeconds: number;
  grantMinutes: number;
  assignees?: unknown[];
  channel?: string;
  metadata: Record<string, unknown>;
  signal: AbortSignal;
};

type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_by: { type: string } | null;
};

/** Beckon's `service.wait_seconds` ceiling: each wait is one call under common client timeouts. */
const WAIT_SECONDS = 50;
const PERSON = 'a person through Beckon';

/**
 * People's decisions through Beckon's own agent tools (`service.gate_request`, `service.get`
 * waiting, `service.gate_grant`), over one MCP connection opened on the first question.
 */
export class Approvals {
  private client: Promise<Client> | null = null;

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  private connect(): Promise<Client> {
    this.client ??= (async () => {
      const client = new Client({ name: 'beckon-mcp-gate', version });
      const endpoint = new URL(`${this.url.replace(/\/+$/, '')}/mcp`);
      const headers = { authorization: `Bearer ${this.token}` };
      await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
      return client;
    })().catch((error: unknown) => {
      this.client = null;
      throw error;
    });
    return this.client;
  }

  private async call<T>(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<T> {
    const client = await this.connect();
    const timeout = (WAIT_SECONDS + 30) * 1000;
    const result = (await client.callTool({ name, arguments: args }, undefined, { signal, timeout })) as {
      content?: Array<{ type: string; text?: string }>;
    };
    const text = result.content?.[0]?.text;
    if (typeof text !== 'string') throw new Error(`${name} answered no JSON`);
    return JSON.parse(text) as T;
  }

  /** Asks, then waits until the question ends or the timeout passes (then: a denial). */
  async decide(options: AskOptions): Promise<Decision> {
    const { signal } = options;
    const asked = await this.call<{
      grant: { expires_at: string; note: string | null } | null;
      item: Item | null;
    }>(
      'service.gate_request',
      {
        rule: options.rule,
        title: options.title,
        message: options.message,
        priority: options.priority,
        timeout_seconds: options.timeoutSeconds,
        grant_minutes: options.grantMinutes,
        metadata: options.metadata,
        ...(options.assignees ? { assignees: options.assignees } : {}),
        ...(options.channel ? { channel: options.channel } : {}),
      },
      signal,
    );
    if (asked.grant) {
      const note = asked.grant.note ? `: ${asked.grant.note}` : '';
      return { allow: true, reason: `Allowed by ${PERSON} (a grant until ${asked.grant.expires_at})${note}` };
    }
    if (!asked.item) throw new Error('service.gate_request answered neither a grant nor a question');
    let item = asked.item;
    // The question expires at its deadline; the margin lets that expiry be seen.
    const giveUp = Date.now() + (options.timeoutSeconds + 15) * 1000;
    while (item.status === 'open' && Date.now() < giveUp) {
      const wait = Math.max(1, Math.min(WAIT_SECONDS, Math.ceil((giveUp - Date.now()) / 1000)));
      item = await this.call<Item>('service.get', { id: item.id, wait_seconds: wait }, signal);
    }
    const note =
      typeof item.response?.note === 'string' && item.response.note.trim() ? item.response.note.trim() : '';
    const because = note ? `: ${note}` : '';
    const decision = item.response?.decision;
    if (item.status === 'answered' && item.answered_by?.type !== 'policy') {
      if (decision === 'allow_for')
        await this.call('service.gate_grant', { item_id: item.id }, signal).catch(() => {});
      if (decision === 'allow' || decision === 'allow_for')
        return { allow: true, reason: `Allowed by ${PERSON}${because}` };
      return { allow: false, reason: `Denied by ${PERSON}${because}` };
    }
    if (item.status === 'dismissed') return { allow: false, reason: `Denied by ${PERSON}${because}` };
    return { allow: false, reason: `Nobody decided within ${options.timeoutSeconds} s: denied` };
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => null);
    await client?.close();
  }
}
