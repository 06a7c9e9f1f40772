// @ts-check
import { defineConfig } from 'tsdown';

export default defineConfig([
  // serveMcp for programs that embed the bridge, for import and require.
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    platform: 'node',
    target: 'node20',
    dts: true,
    clean: true,
  },
  // The `beckon-mcp` command.
  {
    entry: { bin: 'src/bin.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    dts: false,
    clean: false,
  },
]);
