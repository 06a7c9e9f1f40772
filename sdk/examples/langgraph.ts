// LangGraph.js: the tools node pauses the graph with interrupt() until a person decided in
// Beckon; beckonResume waits for the decision and resumes the graph with it.
// Run: BECKON_URL=... BECKON_TOKEN=... npx tsx examples/langgraph.ts
import { createClient } from '@beckon/sdk';
import { approvalInterrupt, beckonResume, refusal } from '@beckon/sdk/langgraph';
import { type AIMessage, ToolMessage } from '@langchain/core/messages';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { langGraphModel } from './scripted-models';

const beckon = createClient({ baseUrl: process.env.BECKON_URL ?? '', token: process.env.BECKON_TOKEN ?? '' });
const model = langGraphModel('drop_table', { table: 'sessions' }); // e.g. new ChatOpenAI(...).bindTools(tools)
const tools: Record<string, (args: Record<string, unknown>) => string> = {
  drop_table: ({ table }) => `dropped ${String(table)}`,
};

const graph = new StateGraph(MessagesAnnotation)
  .addNode('agent', async ({ messages }) => ({ messages: [await model.invoke(messages)] }))
  .addNode('tools', async ({ messages }) => {
    const last = messages.at(-1) as AIMessage;
    const results: ToolMessage[] = [];
    for (const call of last.tool_calls ?? []) {
      const approval = await approvalInterrupt(call.name, call.args, { beckon, agent: 'db agent' });
      const content =
        approval.decision === 'allow' ? (tools[call.name]?.(call.args) ?? 'no such tool') : refusal(approval);
      results.push(new ToolMessage({ content, tool_call_id: call.id ?? call.name }));
    }
    return { messages: results };
  })
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', ({ messages }) =>
    (messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END,
  )
  .addEdge('tools', 'agent')
  .compile({ checkpointer: new MemorySaver() }); // a persistent checkpointer survives restarts

const config = { configurable: { thread_id: `example-${Date.now()}` } };
let state = await graph.invoke({ messages: [{ role: 'user', content: 'Drop the sessions table.' }] }, config);
for (
  let resume = await beckonResume(graph, config, { beckon });
  resume;
  resume = await beckonResume(graph, config, { beckon })
) {
  state = await graph.invoke(resume, config);
}
console.log(String(state.messages.at(-1)?.content));
