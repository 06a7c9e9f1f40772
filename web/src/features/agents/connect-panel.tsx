import { Tab, TabGroup, TabList, TabPanel, TabPanels } from '@headlessui/react';
import { CopyButton } from '../../components/copy-button';
import { gateSnippets, type Snippet } from './gate-snippets';

/**
 * Ready-to-paste ways for an agent to use its key: MCP (HTTP, then asking as a task or with a
 * bounded wait, or stdio), the SDK, the CLI and plain HTTP; then the gates (gate-snippets.ts).
 */
export function snippets(origin: string, key: string): Snippet[] {
  return [
    {
      id: 'mcp',
      label: 'MCP',
      intro: 'Agents that speak MCP (Streamable HTTP) connect to POST /mcp with the key as bearer token:',
      code: JSON.stringify(
        {
          mcpServers: {
            beckon: { type: 'http', url: `${origin}/mcp`, headers: { Authorization: `Bearer ${key}` } },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'tasks',
      label: 'Tasks',
      intro:
        'MCP clients with tasks (protocol 2025-11-25) ask as a task: the call returns at once, the answer comes when a person gives it:',
      code: `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

// BECKON_TOKEN=${key}
const client = new Client({ name: 'my-agent', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL('${origin}/mcp'), {
    requestInit: { headers: { Authorization: \`Bearer \${process.env.BECKON_TOKEN}\` } },
  }),
);
await client.listTools(); // learns that service.ask runs as a task
const ask = {
  name: 'service.ask',
  arguments: {
    title: 'Deploy to production?',
    form: { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] },
  },
};
for await (const message of client.experimental.tasks.callToolStream(ask, CallToolResultSchema)) {
  if (message.type === 'taskCreated') console.log('asked, task', message.task.taskId);
  if (message.type === 'result') console.log(message.result.structuredContent); // status, response
}
// Or by hand: tools/call with "task": {"ttl": 86400000}, then tasks/result (waits) or tasks/get.`,
    },
    {
      id: 'wait',
      label: 'Wait',
      intro:
        'MCP clients without tasks ask with wait_seconds (at most 50) and call service.get again until the item is no longer open:',
      code: `tools/call service.ask
  {"title": "Deploy to production?",
   "form": {"id": "deploy", "fields": [{"id": "ok", "type": "yesno", "label": "Ship it?", "required": true}]},
   "wait_seconds": 50}
→ the item: "answered" with its "response" if a person answered within 50 s,
  else still "open" (and a note naming the call that resumes):

tools/call service.get
  {"id": "<the item's id>", "wait_seconds": 50}
→ repeat until "status" is no longer "open" (answered, dismissed, expired or withdrawn)

A progressToken in the call's _meta brings progress notifications while it waits.`,
    },
    {
      id: 'stdio',
      label: 'stdio',
      intro: 'MCP hosts that launch tools as processes run the @beckon/mcp bridge:',
      code: JSON.stringify(
        {
          mcpServers: {
            beckon: {
              command: 'npx',
              args: ['-y', '@beckon/mcp'],
              env: { BECKON_URL: origin, BECKON_TOKEN: key },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'sdk',
      label: 'SDK',
      intro:
        'TypeScript or JavaScript, with npm install @beckon/sdk (keep the key in an environment variable):',
      code: `import { createClient } from '@beckon/sdk';

// BECKON_TOKEN=${key}
const beckon = createClient({ baseUrl: '${origin}', token: process.env.BECKON_TOKEN! });

const question = await beckon.ask({
  title: 'Deploy to production?',
  form: { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] },
});
const outcome = await question.waitForAnswer();`,
    },
    {
      id: 'cli',
      label: 'CLI',
      intro: 'The beckon command line (npm install -g @beckon/sdk):',
      code: `export BECKON_URL=${origin}
export BECKON_TOKEN=${key}
beckon notify "Backup finished" --level success
beckon ask "Ship it?" --field ok:yesno:Ship --wait`,
    },
    {
      id: 'curl',
      label: 'curl',
      intro: 'Any HTTP client, with the REST API:',
      code: `curl -X POST ${origin}/api/items \\
  -H 'Authorization: Bearer ${key}' \\
  -H 'Content-Type: application/json' \\
  -d '{"title":"Backup finished","level":"success"}'`,
    },
  ];
}

export function ConnectPanel({ apiKey }: { apiKey: string | null }) {
  const origin = window.location.origin;
  const list = [...snippets(origin, apiKey ?? '<API_KEY>'), ...gateSnippets(origin, apiKey ?? '<API_KEY>')];
  return (
    <section aria-labelledby="connect-heading" className="space-y-3">
      <h2 id="connect-heading" className="text-lg font-semibold text-gray-900">
        Connect your agent
      </h2>
      <p className="text-sm text-gray-700">
        {apiKey
          ? 'These snippets contain the key you just created.'
          : 'Create a key above, then paste one of these; <API_KEY> stands for the key.'}
      </p>
      <TabGroup>
        <TabList className="flex flex-wrap gap-1" aria-label="Ways to connect">
          {list.map((snippet) => (
            <Tab
              key={snippet.id}
              className="rounded-md px-3 py-1.5 text-sm font-medium text-gray-800 focus-ring data-hover:bg-gray-100 data-selected:bg-indigo-700 data-selected:text-white"
            >
              {snippet.label}
            </Tab>
          ))}
        </TabList>
        <TabPanels className="mt-3">
          {list.map((snippet) => (
            <TabPanel key={snippet.id} className="space-y-2 focus-ring rounded-md">
              <div className="flex items-center justify-between gap-2">
                <p className="text-sm text-gray-800">{snippet.intro}</p>
                <CopyButton text={snippet.code} label={`Copy ${snippet.label} snippet`} />
              </div>
              <pre className="overflow-x-auto rounded-md bg-gray-900 p-3 text-xs leading-relaxed text-gray-100">
                <code>{snippet.code}</code>
              </pre>
            </TabPanel>
          ))}
        </TabPanels>
      </TabGroup>
    </section>
  );
}
