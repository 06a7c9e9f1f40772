#!/usr/bin/env node
// The workspace ships TypeScript sources: tsx's loader runs them on Node >= 20.6.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), process.env);
