// openapi-typescript (used by the OpenAPI client test) writes its output with the classic
// TypeScript compiler API, which the workspace's TypeScript 7 does not have. Its `typescript`
// peer would resolve to that one, so it gets TypeScript 5 as its own dependency instead.
function readPackage(pkg) {
  if (pkg.name === 'openapi-typescript' && pkg.peerDependencies?.typescript) {
    delete pkg.peerDependencies.typescript;
    pkg.dependencies = { ...pkg.dependencies, typescript: 'npm:typescript@5.9.3' };
  }
  return pkg;
}

module.exports = { hooks: { readPackage } };
