import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyInstance } from 'fastify';
import { appRouter } from '../app-router';
import type { Deps } from '../deps';
import { registerDiscordWebhooks } from '../modules/discord/discord-http';
import { registerSlackWebhooks } from '../modules/slack/slack-http';
import { registerTeamsWebhooks } from '../modules/teams/teams-http';
import { registerTelegramWebhooks } from '../modules/telegram/telegram-http';
import { registerTwilioWebhooks } from '../modules/twilio/twilio-http';
import { registerAgentStream } from './agent-stream';
import { registerApiRateLimit } from './api-rate-limit';
import { registerAuditExport } from './audit-export';
import { registerCalendarFeeds } from './calendar-feeds';
import { createBaseApp } from './common';
import { registerDocsPage } from './docs-page';
import { registerDownloads } from './downloads';
import { registerEmailPages } from './email-pages';
import { Holds, registerHolds } from './holds';
import { registerMcp } from './mcp';
import { registerMcpOriginCheck } from './mcp-origin';
import { openApiDocument } from './openapi';
import { registerOrgExport } from './org-export';
import { registerPaymentsWebhook } from './payments-webhook';
import { serveProcedures } from './procedures';
import { registerProtectedResourceMetadata } from './protected-resource';
import { registerReceiptKeys } from './receipt-keys';
import { registerWebSocket } from './websocket';

/** The resource process (port 3000): /api (REST from the tRPC procedures), /trpc, operations. */
export async function buildResourceApp(
  deps: Deps,
  router: AnyTRPCRouter = appRouter,
): Promise<FastifyInstance> {
  const document = openApiDocument(router, deps.env);
  const app = createBaseApp(deps, { name: 'resource' });
  // Before anything: a foreign page's Origin on /mcp is refused (403), credentials unread.
  registerMcpOriginCheck(app, deps.env);
  // Then: its hook counts every request of /api, /trpc and /mcp before anything else runs, and
  // answers 401 before the body where a credential is needed and missing.
  registerApiRateLimit(app, deps, router);
  // Then: streams and waiting calls, capped per caller once the caller is known.
  const holds = new Holds(deps.env);
  registerHolds(app, holds);
  app.get('/api/openapi.json', async () => document);
  registerDocsPage(app);
  registerDownloads(app, deps);
  registerCalendarFeeds(app, deps);
  registerAuditExport(app, deps);
  registerOrgExport(app, deps);
  await registerEmailPages(app, deps);
  registerPaymentsWebhook(app, deps);
  registerSlackWebhooks(app, deps);
  registerTelegramWebhooks(app, deps);
  registerDiscordWebhooks(app, deps);
  registerTeamsWebhooks(app, deps);
  registerTwilioWebhooks(app, deps);
  registerAgentStream(app, deps);
  registerMcp(app, deps);
  registerProtectedResourceMetadata(app, deps);
  registerReceiptKeys(app, deps);
  await registerWebSocket(app, deps, holds);
  await serveProcedures(app, deps, router, { rest: '/api', trpc: '/trpc' });
  return app;
}
