#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { version } from '../package.json';
import { serveMcp } from './bridge';

const USAGE = `Usage: beckon-mcp [--url <url>] [--token <token>] [--tool-names auto|dotted|underscore] [--version]
       beckon-mcp gate ...   put people's approval in front of another MCP server (beckon-mcp gate --help)

Serves Beckon's agent tools (service.notify, service.ask, ...) over stdio for MCP hosts that
launch tools as processes, forwarding every call to <url>/mcp with the token.
  --url    the Beckon server's origin (default: BECKON_URL)
  --token  an agent's API key (default: BECKON_TOKEN)
  --tool-names  service.notify (dotted) or service_notify (underscore); auto (default): underscore
           for hosts that refuse dots (Claude, Codex, Copilot, Cursor, by their declared name)
`;

async function main(): Promise<number> {
  let values: {
    url?: string | undefined;
    token?: string | undefined;
    'tool-names'?: string | undefined;
    help?: boolean | undefined;
    version?: boolean | undefined;
  };
  try {
    values = parseArgs({
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        'tool-names': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`beckon-mcp: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  const url = values.url ?? process.env.BECKON_URL;
  const token = values.token ?? process.env.BECKON_TOKEN;
  if (!url || !token) {
    process.stderr.write(`beckon-mcp: set BECKON_URL and BECKON_TOKEN (or --url, --token)\n${USAGE}`);
    return 1;
  }
  const toolNames = values['tool-names'] ?? 'auto';
  if (toolNames !== 'auto' && toolNames !== 'dotted' && toolNames !== 'underscore') {
    process.stderr.write(`beckon-mcp: --tool-names must be auto, dotted or underscore\n${USAGE}`);
    return 1;
  }
  try {
    await serveMcp({ url, token, toolNames });
    return 0;
  } catch (error) {
    // stdout belongs to the MCP protocol: failures go to stderr only.
    process.stderr.write(`beckon-mcp: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode =
  process.argv[2] === 'gate'
    ? await (await import('./gate/command')).gateCommand(process.argv.slice(3))
    : await main();
