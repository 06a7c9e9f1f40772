import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import type { z } from 'zod';
import { passkeyProcedures } from './accounts/passkey-procedures';
import { accountsProcedures } from './accounts/procedures';
import { adminProcedures } from './admin/procedures';
import { attachmentsProcedures } from './attachments/procedures';
import { auditProcedures } from './audit/procedures';
import { billingProcedures } from './billing/procedures';
import { channelsProcedures } from './channels/procedures';
import { discordProcedures } from './discord/procedures';
import { emailProcedures } from './email/procedures';
import type { ErrorShape } from './errors';
import { gateProcedures } from './gate/procedures';
import { identityProcedures } from './identity/procedures';
import { inboundProcedures } from './inbound/procedures';
import { invitationAccountProcedures, invitationAdminProcedures } from './invitations/procedures';
import { itemsProcedures } from './items/procedures';
import type { Meta } from './meta';
import type { ProcedureContract } from './procedure';
import { pushProcedures } from './push/procedures';
import { receiptProcedures } from './receipts/procedures';
import { retentionProcedures } from './retention/procedures';
import { availabilityProcedures } from './schedules/availability.procedures';
import { escalationPoliciesProcedures } from './schedules/escalation-policies.procedures';
import { schedulesProcedures } from './schedules/procedures';
import { settingsProcedures } from './settings/procedures';
import { slackProcedures } from './slack/procedures';
import { statsProcedures } from './stats/procedures';
import { teamsProcedures } from './teams/procedures';
import { telegramProcedures } from './telegram/procedures';
import { templatesProcedures } from './templates/procedures';
import { twilioProcedures } from './twilio/procedures';
import { webhooksProcedures } from './webhooks/procedures';

/** Every operation of the resource process (REST /api, tRPC /trpc, MCP), by router. */
export const appContract = {
  identity: identityProcedures,
  items: itemsProcedures,
  attachments: attachmentsProcedures,
  channels: channelsProcedures,
  templates: templatesProcedures,
  schedules: schedulesProcedures,
  escalationPolicies: escalationPoliciesProcedures,
  availability: availabilityProcedures,
  settings: settingsProcedures,
  audit: auditProcedures,
  receipts: receiptProcedures,
  stats: statsProcedures,
  admin: { ...adminProcedures, ...invitationAdminProcedures },
  inbound: inboundProcedures,
  webhooks: webhooksProcedures,
  billing: billingProcedures,
  push: pushProcedures,
  email: emailProcedures,
  slack: slackProcedures,
  telegram: telegramProcedures,
  discord: discordProcedures,
  teams: teamsProcedures,
  twilio: twilioProcedures,
  gate: gateProcedures,
  retention: retentionProcedures,
};

/** The authorization process's operations (/auth REST, /auth/trpc). */
export const authContract = {
  accounts: { ...accountsProcedures, ...invitationAccountProcedures, ...passkeyProcedures },
};

type ContractTree = { [key: string]: ProcedureContract | ContractTree };

type InputOf<C> = C extends { input: infer I extends z.ZodType } ? z.input<I> : undefined;
type ProcedureOf<C extends ProcedureContract> = C['kind'] extends 'query'
  ? TRPCQueryProcedure<{ input: InputOf<C>; output: z.output<C['output']>; meta: Meta }>
  : TRPCMutationProcedure<{ input: InputOf<C>; output: z.output<C['output']>; meta: Meta }>;
type RecordOf<T> = {
  [K in keyof T]: T[K] extends ProcedureContract ? ProcedureOf<T[K]> : RecordOf<T[K]>;
};

/** A tRPC router type for clients, built from contracts alone (no server code). */
export type RouterOf<T extends ContractTree> = TRPCBuiltRouter<
  { ctx: object; meta: Meta; errorShape: ErrorShape; transformer: false },
  RecordOf<T>
>;

export type AppRouter = RouterOf<typeof appContract>;
export type AuthRouter = RouterOf<typeof authContract>;
