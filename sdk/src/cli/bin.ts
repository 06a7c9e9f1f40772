#!/usr/bin/env node
const argv = process.argv.slice(2);
// `beckon gate` runs before every tool call of a coding agent: it loads only what it needs.
// `beckon audit` (the audit chain's verifier) likewise.
const run =
  argv[0] === 'gate'
    ? (await import('./gate/command')).gateCommand
    : argv[0] === 'audit'
      ? (await import('./proofs/command')).auditCommand
      : (await import('./main')).main;
process.exitCode = await run(argv, process.env);
