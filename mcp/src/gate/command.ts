import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Approvals } from './approvals';
import { DEFAULT_POLICY, type McpGatePolicy, parsePolicy } from './policy';
import { relay } from './relay';

export const GATE_USAGE = `Usage: beckon-mcp gate [--policy FILE] -- <command> [args...]
       beckon-mcp gate [--policy FILE] [--header "Name: value"]... <https://server/mcp>

Wraps an MCP server (a command speaking stdio, or a Streamable HTTP URL) and serves it on stdio:
everything is relayed, except that a tools/call the policy holds waits for a person's decision
in Beckon (BECKON_URL, BECKON_TOKEN); a refusal is a tool result with isError and the reason.
Without --policy, tools that declare readOnlyHint run and every other tool asks.
`;

async function loadPolicy(file: string | undefined): Promise<McpGatePolicy> {
  if (!file) return DEFAULT_POLICY;
  try {
    return parsePolicy(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(`the policy ${file}: ${(error as Error).message}`);
  }
}

/** The wrapped server's environment: ours, without Beckon's credentials. */
function serverEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'BECKON_TOKEN' && key !== 'BECKON_URL') env[key] = value;
  }
  return env;
}

/** `beckon-mcp gate ...` (argv after "gate"): the exit code. */
export async function gateCommand(argv: string[]): Promise<number> {
  const log = (text: string) => process.stderr.write(`beckon-mcp gate: ${text}\n`);
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const wrapped = split === -1 ? [] : argv.slice(split + 1);
  let values: { policy?: string | undefined; header?: string[] | undefined; help?: boolean | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: own,
      allowPositionals: true,
      options: {
        policy: { type: 'string' },
        header: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    log(`${(error as Error).message}\n${GATE_USAGE}`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(GATE_USAGE);
    return 0;
  }
  const url = positionals[0];
  if ((url === undefined) === (wrapped.length === 0) || positionals.length > 1) {
    log(`give the server: -- <command...> or one URL\n${GATE_USAGE}`);
    return 1;
  }
  try {
    const policy = await loadPolicy(values.policy);
    const headers = Object.fromEntries(
      (values.header ?? []).map((line) => {
        const at = line.indexOf(':');
        if (at < 1) throw new Error(`--header "${line}": write "Name: value"`);
        return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      }),
    );
    const server = url
      ? new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
      : new StdioClientTransport({
          command: wrapped[0] as string,
          args: wrapped.slice(1),
          env: serverEnv(),
          stderr: 'inherit',
        });
    const { BECKON_URL, BECKON_TOKEN } = process.env;
    const approvals = BECKON_URL && BECKON_TOKEN ? new Approvals(BECKON_URL, BECKON_TOKEN) : null;
    if (!approvals)
      log('BECKON_URL and BECKON_TOKEN are not both set: calls that need a decision are refused');
    const client = new StdioServerTransport();
    const done = relay({ client, server, policy, approvals, log });
    await server.start();
    await client.start();
    process.stdin.once('end', () => void client.close());
    await done;
    await approvals?.close();
    return 0;
  } catch (error) {
    log((error as Error).message);
    return 1;
  }
}
