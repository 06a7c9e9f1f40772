/**
 * Scripted stand-ins for a real model, so that the examples run offline: each calls one tool
 * once, then answers with the tool's result (or the refusal it got). Replace them with a real
 * provider's model (`openai('gpt-5')`, `new ChatOpenAI(...)`, the agent's default model).
 */
import { AIMessage, AIMessageChunk, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import type { Model, ModelRequest, ModelResponse } from '@openai/agents';
import { Usage } from '@openai/agents';
import { MockLanguageModelV4 } from 'ai/test';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** Vercel AI SDK: calls `tool` with `input`, then repeats what the tool (or the refusal) said. */
export function aiSdkModel(tool: string, input: Record<string, unknown>) {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last?.role !== 'tool') {
        const call = {
          type: 'tool-call' as const,
          toolCallId: 'call-1',
          toolName: tool,
          input: JSON.stringify(input),
        };
        return {
          content: [call],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      }
      const text = `The tool said: ${JSON.stringify(last.content[0] && 'output' in last.content[0] ? last.content[0].output : null)}`;
      return {
        content: [{ type: 'text', text }],
        finishReason: { unified: 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

/** OpenAI Agents SDK: a Model that calls `tool` first, then repeats the tool's output. */
export function openAiAgentsModel(tool: string, input: Record<string, unknown>): Model {
  return {
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const items = Array.isArray(request.input) ? request.input : [];
      const output = items.find((item) => item.type === 'function_call_result');
      if (!output) {
        const call = {
          type: 'function_call' as const,
          callId: 'call-1',
          name: tool,
          arguments: JSON.stringify(input),
          status: 'completed' as const,
        };
        return { usage: new Usage(), output: [call] };
      }
      const result = 'output' in output ? (output.output as unknown) : null;
      const said =
        typeof result === 'string'
          ? result
          : ((result as { text?: string } | null)?.text ?? JSON.stringify(result));
      const text = { type: 'output_text' as const, text: `The tool said: ${said}` };
      const message = {
        type: 'message' as const,
        role: 'assistant' as const,
        status: 'completed' as const,
        content: [text],
      };
      return { usage: new Usage(), output: [message] };
    },
    // biome-ignore lint/correctness/useYield: the examples never stream
    async *getStreamedResponse() {
      throw new Error('the scripted model does not stream');
    },
  };
}

/** LangGraph (LangChain chat models): a tool call, then a message repeating the tool's answer. */
export function langGraphModel(tool: string, input: Record<string, unknown>) {
  const toolCall = { id: 'call-1', name: tool, args: input, type: 'tool_call' as const };
  const calling = new FakeStreamingChatModel({
    chunks: [new AIMessageChunk({ content: '', tool_calls: [toolCall] })],
  });
  return {
    async invoke(messages: BaseMessage[]): Promise<AIMessage> {
      const last = messages.at(-1);
      if (!(last instanceof ToolMessage)) return (await calling.invoke(messages)) as AIMessage;
      const answering = new FakeStreamingChatModel({
        responses: [new AIMessage(`The tool said: ${String(last.content)}`)],
      });
      return (await answering.invoke(messages)) as AIMessage;
    },
  };
}
