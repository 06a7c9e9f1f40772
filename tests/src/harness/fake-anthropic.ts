import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake model was sent: the tool results of the last turn, in order. */
export type ModelTurn = { toolResults: string[] };

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export type FakeModel = { url: string; turns: ModelTurn[]; close(): Promise<void> };

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { text?: string }) => part.text ?? '').join('')
      : '';

/**
 * A scripted model behind Anthropic's Messages API, for Claude Code and the Claude Agent SDK
 * (they reach it through ANTHROPIC_BASE_URL). A prompt containing `run: <command>` makes the first
 * turn a Bash tool call of that command; the next turn reports the tool's result as
 * `The tool said: <result>` and ends. Everything else is answered "ok". Streams as the API does.
 */
export async function startFakeModel(): Promise<FakeModel> {
  const turns: ModelTurn[] = [];
  const reply = (body: {
    model?: string;
    stream?: boolean;
    tools?: { name: string }[];
    messages?: { role: string; content: unknown }[];
  }): { blocks: Block[]; stop: string } => {
    const last = body.messages?.at(-1)?.content;
    const results = Array.isArray(last)
      ? (last as { type: string; content?: unknown }[]).filter((part) => part.type === 'tool_result')
      : [];
    if (results.length > 0) {
      const toolResults = results.map((part) => textOf(part.content));
      turns.push({ toolResults });
      return {
        blocks: [{ type: 'text', text: `The tool said: ${toolResults.join('\n')}` }],
        stop: 'end_turn',
      };
    }
    const prompt = body.messages?.map((message) => textOf(message.content)).join('\n') ?? '';
    const command = /run: (.+)/.exec(prompt)?.[1]?.trim();
    if (command && body.tools?.some((tool) => tool.name === 'Bash')) {
      return {
        blocks: [{ type: 'tool_use', id: `toolu_${turns.length + 1}`, name: 'Bash', input: { command } }],
        stop: 'tool_use',
      };
    }
    return { blocks: [{ type: 'text', text: 'ok' }], stop: 'end_turn' };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error"}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      const { blocks, stop } = reply(body);
      const message = {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: body.model,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stop }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      send('message_start', { message: { ...message, content: [], stop_reason: null } });
      blocks.forEach((block, index) => {
        if (block.type === 'tool_use') {
          send('content_block_start', { index, content_block: { ...block, input: {} } });
          const partial_json = JSON.stringify(block.input);
          send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
        } else {
          send('content_block_start', { index, content_block: { type: 'text', text: '' } });
          send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
        }
        send('content_block_stop', { index });
      });
      send('message_delta', {
        delta: { stop_reason: stop, stop_sequence: null },
        usage: { output_tokens: 1 },
      });
      send('message_stop', {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    turns,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
