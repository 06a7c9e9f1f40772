// Vercel AI SDK: the `deploy` tool runs only once a person allowed it in Beckon.
// Run: BECKON_URL=https://beckon.example.com BECKON_TOKEN=<agent API key> npx tsx examples/ai-sdk.ts
import { createClient } from '@beckon/sdk';
import { beckonToolApproval } from '@beckon/sdk/ai';
import { generateText, isStepCount, tool } from 'ai';
import { z } from 'zod';
import { aiSdkModel } from './scripted-models';

const beckon = createClient({ baseUrl: process.env.BECKON_URL ?? '', token: process.env.BECKON_TOKEN ?? '' });

const result = await generateText({
  model: aiSdkModel('deploy', { env: 'production' }), // your model, e.g. openai('gpt-5')
  tools: {
    deploy: tool({
      description: 'Deploy the current build',
      inputSchema: z.object({ env: z.string() }),
      execute: async ({ env }) => `deployed to ${env}`,
    }),
  },
  toolApproval: beckonToolApproval({ beckon, agent: 'release bot', timeoutSeconds: 600 }),
  stopWhen: isStepCount(3),
  prompt: 'Deploy the build to production.',
});
console.log(result.text);
