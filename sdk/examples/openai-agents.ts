// OpenAI Agents SDK: a tool with `needsApproval`; the run stops, people are asked in Beckon, and
// the run resumes from their answer, in this process or another one after a restart.
// Run: BECKON_URL=... BECKON_TOKEN=... npx tsx examples/openai-agents.ts start state.json
//      (later, any process) npx tsx examples/openai-agents.ts resume state.json
import { readFile, writeFile } from 'node:fs/promises';
import { createClient } from '@beckon/sdk';
import { applyApprovals, askForApprovals } from '@beckon/sdk/openai-agents';
import { Agent, RunState, run, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { openAiAgentsModel } from './scripted-models';

setTracingDisabled(true); // the scripted model works offline; keep tracing with a real model
const beckon = createClient({ baseUrl: process.env.BECKON_URL ?? '', token: process.env.BECKON_TOKEN ?? '' });

const refund = tool({
  name: 'refund',
  description: 'Refund an order',
  parameters: z.object({ order: z.string(), amount: z.number() }),
  needsApproval: true,
  execute: async ({ order, amount }) => `refunded ${amount} on ${order}`,
});
const agent = new Agent({
  name: 'support',
  instructions: 'Refund orders when asked.',
  tools: [refund],
  model: openAiAgentsModel('refund', { order: 'A-1042', amount: 30 }), // or leave out: the default model
});

const [mode, file = 'state.json'] = process.argv.slice(2);
if (mode === 'start') {
  const result = await run(agent, 'Refund 30 on order A-1042.', { context: {} });
  const asked = await askForApprovals(result.state, { beckon, agent: 'support bot' });
  await writeFile(file, result.state.toString());
  console.log(JSON.stringify({ asked }));
} else if (mode === 'resume') {
  const state = await RunState.fromString(agent, await readFile(file, 'utf8'));
  const decided = await applyApprovals(state, { beckon });
  const result = await run(agent, state);
  console.log(JSON.stringify({ ...decided, output: result.finalOutput }));
} else {
  console.error('usage: openai-agents.ts start|resume <state file>');
  process.exitCode = 1;
}
