#!/usr/bin/env node
const argv = process.argv.slice(2);
// `beckon gate` runs before every tool call of a coding agent: it loads only what it needs.
const run = argv[0] === 'gate' ? (await import('./gate/command')).gateCommand : (await import('./main')).main;
process.exitCode = await run(argv, process.env);
