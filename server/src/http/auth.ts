import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { createBaseApp } from './common';

/** The authorization process (port 3001): /auth/*, /oauth/*, /.well-known/*, operations. */
export async function buildAuthApp(deps: Deps): Promise<FastifyInstance> {
  const app = createBaseApp(deps, { name: 'auth' });
  return app;
}
