// The MCP conformance CLI imports `globSync` from node:fs, which Node 20 lacks (it uses it only for
// commands these tests do not run). Loaded with `node --import`, this gives that one importer a
// node:fs with a globSync that throws; every other module gets node:fs as it is.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const SHIM = `data:text/javascript,${encodeURIComponent(
  "import fs from 'node:fs'; export * from 'node:fs'; export default fs;" +
    "export const globSync = () => { throw new Error('fs.globSync needs Node 22'); };",
)}`;

export async function resolve(specifier, context, next) {
  const fs = specifier === 'fs' || specifier === 'node:fs';
  if (fs && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}

if (isMainThread) register(import.meta.url);
