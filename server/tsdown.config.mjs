// @ts-check
import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsdown';

// The compiled server (`pnpm build`): one ES module per process in dist/, flat, so that every
// file and shared chunk sits in the same folder (src/main.ts, src/processes/gateway.ts and
// db/src/migrate.ts find the process files, the dashboard and the migrations from there).
// The workspace packages (@beckon/db) are bundled in; npm packages stay imports, and the output
// may import only the dependencies declared here, so `pnpm deploy --prod` has all it needs.
const { dependencies, optionalDependencies } = JSON.parse(
  readFileSync(new URL('package.json', import.meta.url), 'utf8'),
);

export default defineConfig({
  entry: {
    main: 'src/main.ts',
    resource: 'src/processes/resource.ts',
    auth: 'src/processes/auth.ts',
    gateway: 'src/processes/gateway.ts',
    worker: 'src/worker-main.ts',
    migrate: 'src/cli/migrate.ts',
    'org-plan': 'src/cli/org-plan.ts',
  },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  fixedExtension: true,
  dts: false,
  clean: true,
  deps: {
    neverBundle: true,
    alwaysBundle: [/^@beckon\//],
    onlyImport: [...Object.keys(dependencies), ...Object.keys(optionalDependencies)],
  },
  // The SQL migrations and their journal, beside the bundle that applies them.
  copy: [{ from: '../db/migrations', to: 'dist' }],
});
