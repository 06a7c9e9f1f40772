import type { AppRouter as AppContract, AuthRouter as AuthContract } from '@beckon/contracts/routers';
import { passkeysRouter } from './modules/accounts/passkeys/router';
import { accountsRouter } from './modules/accounts/router';
import { adminRouter } from './modules/admin/router';
import { attachmentsRouter } from './modules/attachments/router';
import { auditRouter } from './modules/audit/router';
import { billingRouter } from './modules/billing/router';
import { channelsRouter } from './modules/channels/router';
import { discordRouter } from './modules/discord/router';
import { emailRouter } from './modules/email/router';
import { gateRouter } from './modules/gates/router';
import { identityRouter } from './modules/identity/router';
import { inboundRouter } from './modules/inbound/router';
import { invitationAccountRouter, invitationAdminRouter } from './modules/invitations/router';
import { pushAnswerRouter } from './modules/items/push-answer-router';
import { itemsRouter } from './modules/items/router';
import { pushRouter } from './modules/push/router';
import { receiptsRouter } from './modules/receipts/router';
import { retentionRouter } from './modules/retention/router';
import { availabilityRouter } from './modules/schedules/availability.router';
import { escalationPoliciesRouter } from './modules/schedules/escalation-policies.router';
import { schedulesRouter } from './modules/schedules/router';
import { settingsRouter } from './modules/settings/router';
import { slackRouter } from './modules/slack/router';
import { statsRouter } from './modules/stats/router';
import { teamsRouter } from './modules/teams/router';
import { telegramRouter } from './modules/telegram/router';
import { templatesRouter } from './modules/templates/router';
import { twilioRouter } from './modules/twilio/router';
import { webhooksRouter } from './modules/webhooks/router';
import type { MatchesContract } from './trpc/contract';
import { createCallerFactory, mergeRouters, router } from './trpc/init';
import { directCallerFactory } from './trpc/trpc-internals';

/** Every procedure of the resource process: REST (/api), tRPC (/trpc) and MCP call these. */
export const appRouter = router({
  identity: identityRouter,
  items: itemsRouter,
  attachments: attachmentsRouter,
  channels: channelsRouter,
  templates: templatesRouter,
  schedules: schedulesRouter,
  escalationPolicies: escalationPoliciesRouter,
  availability: availabilityRouter,
  settings: settingsRouter,
  audit: auditRouter,
  receipts: receiptsRouter,
  stats: statsRouter,
  admin: mergeRouters(adminRouter, invitationAdminRouter),
  inbound: inboundRouter,
  webhooks: webhooksRouter,
  billing: billingRouter,
  push: mergeRouters(pushRouter, pushAnswerRouter),
  email: emailRouter,
  slack: slackRouter,
  telegram: telegramRouter,
  discord: discordRouter,
  teams: teamsRouter,
  twilio: twilioRouter,
  gate: gateRouter,
  retention: retentionRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
/** The same calls without tRPC's proxies (trpc/trpc-internals.ts): the agent tools' caller. */
export const directCaller = directCallerFactory<ReturnType<typeof createCaller>>(appRouter);

/** The authorization process's procedures (/auth REST, /auth/trpc). */
export const authRouter = router({
  accounts: mergeRouters(accountsRouter, invitationAccountRouter, passkeysRouter),
});

export type AuthRouter = typeof authRouter;

/** Compile-time proof that both routers are their contracts (contracts/src/routers.ts), which clients read. */
export const routersMatchContracts: [
  MatchesContract<AppRouter, AppContract>,
  MatchesContract<AuthRouter, AuthContract>,
] = [true, true];
