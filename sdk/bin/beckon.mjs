#!/usr/bin/env node
// In this workspace the package is TypeScript sources: tsx's loader runs them (the published
// package's bin is the built dist/cli.mjs, plain Node).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/bin.ts');
