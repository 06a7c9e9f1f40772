#!/usr/bin/env node
// In this workspace the package is TypeScript sources: tsx's loader runs them (the published
// package's bin is the built dist/bin.js, plain Node).
import { register } from 'tsx/esm/api';

register();
await import('../src/bin.ts');
