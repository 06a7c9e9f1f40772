import type { FastifyInstance } from 'fastify';
import { authRouter } from '../app-router';
import type { Deps } from '../deps';
import { registerApiRateLimit } from './api-rate-limit';
import { createBaseApp } from './common';
import { registerExternalSignIn } from './external-sign-in';
import { registerOAuth } from './oauth';
import { openApiDocument } from './openapi';
import { serveProcedures } from './procedures';
import { registerReceiptKeys } from './receipt-keys';
import { registerSignInRateLimits } from './sign-in-rate-limit';

/** The authorization process (port 3001): /auth/*, /oauth/*, /.well-known/*, operations. */
export async function buildAuthApp(deps: Deps): Promise<FastifyInstance> {
  const app = createBaseApp(deps, { name: 'auth' });
  // First: its hook applies to every route registered below.
  registerSignInRateLimits(app, deps);
  registerApiRateLimit(app, deps, authRouter, 'auth');
  const document = openApiDocument(authRouter, deps.env, 'auth');
  app.get('/auth/openapi.json', async () => document);
  await serveProcedures(app, deps, authRouter, { rest: '/auth', trpc: '/auth/trpc' });
  await registerExternalSignIn(app, deps);
  await registerOAuth(app, deps);
  registerReceiptKeys(app, deps);
  return app;
}
