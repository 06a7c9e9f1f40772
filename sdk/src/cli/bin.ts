#!/usr/bin/env node
const argv = process.argv.slice(2);
// `beckon gate` runs before every tool call of a coding agent: it loads only what it needs.
// `beckon audit` and `beckon verify` (the verifiers of the audit chain and of receipts) likewise.
const run =
  argv[0] === 'gate'
    ? (await import('./gate/command')).gateCommand
    : argv[0] === 'audit'
      ? (await import('./proofs/command')).auditCommand
      : argv[0] === 'verify'
        ? (await import('./proofs/command')).verifyCommand
        : (await import('./main')).main;
process.exitCode = await run(argv, process.env);
