// Copies the proof helpers (contracts/src/proofs: JCS, action digests, the audit chain) into
// .generated/proofs, where `tsconfig.build.json` maps `@beckon/contracts/proofs/*` for the build
// only: the published package bundles them and its declarations need no workspace file.
// Typechecking and tests read the contracts themselves. Run by `pnpm build` before tsdown.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const target = path.join(root, '.generated/proofs');
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
cpSync(path.join(root, '../contracts/src/proofs'), target, {
  recursive: true,
  filter: (source) => !source.endsWith('.test.ts'),
});
