// Claude Agent SDK: canUseTool asks people in Beckon for what the policy does not allow or deny.
// Run: BECKON_URL=... BECKON_TOKEN=... npx tsx examples/claude-agent-sdk.ts
// With ANTHROPIC_API_KEY set this runs a real query() (the SDK starts its CLI); without it, it
// shows the decision for one realistic call, as the SDK would make it.

import { query } from '@anthropic-ai/claude-agent-sdk';
import { createClient } from '@beckon/sdk';
import { beckonCanUseTool } from '@beckon/sdk/claude-agent-sdk';

const beckon = createClient({ baseUrl: process.env.BECKON_URL ?? '', token: process.env.BECKON_TOKEN ?? '' });
const canUseTool = beckonCanUseTool({
  beckon,
  agent: 'coding agent',
  policy: { allow: ['Read', 'Bash(npm test*)'], deny: ['Bash(rm -rf *)'], ask: ['Bash(git push*)'] },
});

if (process.env.ANTHROPIC_API_KEY) {
  for await (const message of query({ prompt: 'Run the tests, then push.', options: { canUseTool } })) {
    if (message.type === 'result') console.log(message);
  }
} else {
  const signal = new AbortController().signal;
  const decision = await canUseTool(
    'Bash',
    { command: 'git push origin main' },
    { signal, toolUseID: 'toolu_01', requestId: 'req_01' },
  );
  console.log(JSON.stringify(decision));
}
