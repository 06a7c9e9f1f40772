/** A ready-to-paste setup (the connect panel's tabs). */
export type Snippet = { id: string; label: string; intro: string; code: string };

/**
 * The shortest working setup of each place where agents ask for permission (docs/agents.md): the
 * gate of coding agents, the MCP gate proxy, the framework adapters and the Python client.
 */
export function gateSnippets(origin: string, key: string): Snippet[] {
  const client = `import { createClient } from '@beckon/sdk';
const beckon = createClient({ baseUrl: '${origin}', token: process.env.BECKON_TOKEN! }); // ${key}`;
  return [
    {
      id: 'claude-code',
      label: 'Claude Code',
      intro:
        'Coding agents with PreToolUse / PermissionRequest hooks: beckon gate decides by .beckon/gate.json and asks you for the rest.',
      code: `npm install -g @beckon/sdk
beckon gate install   # the hook in .claude/settings.json, a starter .beckon/gate.json
export BECKON_URL=${origin}
export BECKON_TOKEN=${key}

# .claude/settings.json (what install writes)
${JSON.stringify(
  {
    hooks: {
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'beckon gate', timeout: 330 }] }],
    },
  },
  null,
  2,
)}`,
    },
    {
      id: 'mcp-gate',
      label: 'Gate proxy',
      intro:
        'Any MCP server behind your approval: tools that are not read-only wait for your decision (a refusal is a tool error the model reads).',
      code: JSON.stringify(
        {
          mcpServers: {
            github: {
              command: 'npx',
              args: ['-y', '@beckon/mcp', 'gate', '--', 'npx', '-y', '@modelcontextprotocol/server-github'],
              env: { BECKON_URL: origin, BECKON_TOKEN: key },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'ai-sdk',
      label: 'Vercel AI',
      intro: 'Vercel AI SDK (ai 7): each tool call waits for your decision.',
      code: `${client}
import { beckonToolApproval } from '@beckon/sdk/ai';

const result = await generateText({ model, tools, prompt, toolApproval: beckonToolApproval({ beckon }) });`,
    },
    {
      id: 'openai-agents',
      label: 'OpenAI Agents',
      intro:
        'OpenAI Agents SDK: tools with needsApproval; the run resumes from your answer, even in another process.',
      code: `${client}
import { applyApprovals, askForApprovals } from '@beckon/sdk/openai-agents';

const result = await run(agent, input, { context: {} });
await askForApprovals(result.state, { beckon });
const saved = result.state.toString(); // keep it; the questions' ids are inside

const state = await RunState.fromString(agent, saved); // later, anywhere
await applyApprovals(state, { beckon });
await run(agent, state);`,
    },
    {
      id: 'langgraph',
      label: 'LangGraph',
      intro: 'LangGraph.js: interrupt() inside a node, resumed with your decision.',
      code: `${client}
import { approvalInterrupt, beckonResume, refusal } from '@beckon/sdk/langgraph';

// in a node: pauses the graph until you decide
const approval = await approvalInterrupt('drop_table', args, { beckon });
if (approval.decision !== 'allow') return { messages: [refusal(approval)] };

// outside: wait for the decision, then resume
const resume = await beckonResume(graph, config, { beckon });
if (resume) await graph.invoke(resume, config);`,
    },
    {
      id: 'claude-agent-sdk',
      label: 'Claude Agent',
      intro: 'Claude Agent SDK: canUseTool with the same policy rules as beckon gate.',
      code: `${client}
import { beckonCanUseTool } from '@beckon/sdk/claude-agent-sdk';

const canUseTool = beckonCanUseTool({ beckon, policy: { allow: ['Read', 'Bash(npm test*)'], deny: ['Bash(rm -rf *)'] } });
for await (const message of query({ prompt, options: { canUseTool } })) console.log(message);`,
    },
    {
      id: 'python',
      label: 'Python',
      intro:
        'Python agents (LangGraph, CrewAI, plain scripts): the beckon package asks and waits; its only dependency is httpx.',
      code: `pip install ./python   # from a checkout of the Beckon repository

from beckon import Beckon

beckon = Beckon("${origin}", "${key}")
question = beckon.ask("Drop the sessions table?", form={
    "id": "approval", "fields": [{"id": "ok", "type": "yesno", "label": "Allow it?", "required": True}]})
outcome = question.wait(timeout=600)
if outcome.status == "answered" and outcome.values["ok"]:
    drop_table("sessions")`,
    },
  ];
}
