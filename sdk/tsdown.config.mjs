// @ts-check
import { defineConfig } from 'tsdown';

const shared = {
  platform: /** @type {const} */ ('neutral'),
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  // tsconfig.build.json maps @beckon/contracts/client to the contract types written out as plain
  // types (scripts/expand-client-types.mjs), so the declarations need neither the workspace nor
  // zod; @trpc/* stay imports (they are dependencies).
  dts: true,
};

export default defineConfig([
  // The client, for import and require; one declaration bundle per format.
  { ...shared, entry: { index: 'src/index.ts' }, format: ['esm', 'cjs'], clean: true },
  // The framework adapters (`@beckon/sdk/ai`, ...): their frameworks are optional peer
  // dependencies, and the client comes from the package's own entry, not a copy of it.
  {
    ...shared,
    entry: {
      'adapters/ai': 'src/adapters/ai.ts',
      'adapters/openai-agents': 'src/adapters/openai-agents.ts',
      'adapters/langgraph': 'src/adapters/langgraph.ts',
      'adapters/claude-agent-sdk': 'src/adapters/claude-agent-sdk.ts',
    },
    format: ['esm', 'cjs'],
    platform: 'node',
    external: ['@beckon/sdk'],
    clean: false,
  },
  // The `beckon` command (ESM, run by node).
  {
    ...shared,
    entry: { cli: 'src/cli/bin.ts' },
    format: ['esm'],
    platform: 'node',
    dts: false,
    clean: false,
  },
]);
