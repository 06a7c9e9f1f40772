// prepublishOnly of the published packages: their package.json points at the TypeScript sources
// for the workspace, and only pnpm rewrites it from `publishConfig` (exports, bin, main, types) when
// packing. `npm publish` would publish a package that cannot load: refuse it.
const agent = process.env.npm_config_user_agent ?? '';
if (!agent.startsWith('pnpm/')) {
  console.error(
    'Publish with pnpm (pnpm release:publish, see docs/releasing.md), not npm: only pnpm applies publishConfig.',
  );
  process.exit(1);
}
