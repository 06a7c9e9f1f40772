import { MAX_WAIT_SECONDS } from '@beckon/contracts/items/agent-arguments';
import { LIMITS } from '@beckon/contracts/items/item.contract';
import { DEFAULT_PAGE, MAX_PAGE } from '@beckon/contracts/paging';
import { describe, expect, it } from 'vitest';
import { toolList } from './tool-list';

type Argument = { description?: string; maximum?: number; maxItems?: number; maxLength?: number };

/** The arguments of the tool whose name ends with `suffix`, as tools/list sends them. */
function argumentsOf(suffix: string): Record<string, Argument> {
  const tool = toolList('2025-11-25').tools.find((t) => t.name.endsWith(suffix));
  if (!tool) throw new Error(`no tool named *${suffix}`);
  return (tool.inputSchema.properties ?? {}) as Record<string, Argument>;
}

describe('the agent tools describe what the contracts enforce', () => {
  it('the page size, the wait and the callback URL', () => {
    expect(argumentsOf('list').limit?.description).toBe(
      `Page size, default ${DEFAULT_PAGE}, capped at ${MAX_PAGE}`,
    );
    const ask = argumentsOf('ask');
    expect(ask.wait_seconds).toMatchObject({ maximum: MAX_WAIT_SECONDS });
    expect(ask.wait_seconds?.description).toContain(`at most ${MAX_WAIT_SECONDS}`);
    // The contract takes http and https callback URLs alike.
    expect(ask.callback_url?.description).toContain('http or https');
  });

  it('the size limits of an item, as stated and as checked', () => {
    const notify = argumentsOf('notify');
    expect(notify.title).toMatchObject({ maxLength: LIMITS.title });
    expect(notify.title?.description).toContain(String(LIMITS.title));
    expect(notify.message).toMatchObject({ maxLength: LIMITS.message });
    expect(notify.message?.description).toContain(String(LIMITS.message));
    expect(notify.tags).toMatchObject({ maxItems: LIMITS.tags });
    expect(notify.tags?.description).toContain(`Up to ${LIMITS.tags}`);
    expect(notify.metadata?.description).toContain(`${LIMITS.metadataBytes / 1024} KiB`);
    expect(argumentsOf('comment_add').text?.description).toContain(String(LIMITS.comment));
  });
});
