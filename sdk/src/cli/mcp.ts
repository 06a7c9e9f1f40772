/**
 * `beckon mcp` is served by the `@beckon/mcp` package: it carries the MCP SDK (and its server
 * dependencies), which this package leaves out so that a client install stays small.
 */
export const MCP_INSTALL_HINT = `beckon mcp needs the @beckon/mcp package, which is not installed.
Install it beside @beckon/sdk (npm install @beckon/mcp, or npm install -g @beckon/mcp) and run
"beckon mcp" again, or run its own command directly: npx @beckon/mcp (the beckon-mcp command).
`;

type Bridge = {
  serveMcp: (options: {
    url: string;
    token: string;
    toolNames?: 'auto' | 'dotted' | 'underscore';
  }) => Promise<void>;
};

const isMissing = (error: unknown, name: string) => {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    typeof message === 'string' &&
    message.includes(name)
  );
};

/** Loads @beckon/mcp where Node finds it from here; null when it is not installed. */
export async function loadBridge(): Promise<Bridge | null> {
  // A variable keeps bundlers and the type checker from resolving the optional package.
  const name = '@beckon/mcp';
  try {
    return (await import(name)) as Bridge;
  } catch (error) {
    if (isMissing(error, name)) return null;
    throw error;
  }
}
