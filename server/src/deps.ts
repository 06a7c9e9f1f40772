import type { Sql } from '@beckon/db';
import type { CredentialCache } from './auth/credential-cache';
import type { OrgFacts } from './caches/org-facts';
import type { Clock } from './clock';
import type { DatabaseWatch } from './database-watch';
import type { AttemptRecorder } from './delivery/attempts';
import type { CallbackSecrets } from './delivery/callback-secrets';
import type { SlowHosts } from './delivery/slow-hosts';
import type { WebhookReads } from './delivery/webhook-reads';
import type { DomainMetrics } from './domain-metrics';
import type { Env } from './env';
import type { Logger } from './log';
import type { MailLinkKey } from './mail/links';
import type { Mailer } from './mail/mailer';
import type { Payments } from './modules/billing/payments';
import type { DiscordConfig } from './modules/discord/discord-config';
import type { SlackConfig } from './modules/slack/slack-config';
import type { TeamsConfig } from './modules/teams/teams-config';
import type { TelegramConfig } from './modules/telegram/telegram-config';
import type { TwilioConfig } from './modules/twilio/twilio-config';
import type { EventHub } from './realtime/event-hub';
import type { Sequencer } from './realtime/sequencer';
import type { FileStorage } from './storage/storage';

/** What every service receives; made in one place, compose.ts. */
export type Deps = {
  env: Env;
  sql: Sql;
  log: Logger;
  /** "Now" for credential lifetimes (tests move it). */
  clock: Clock;
  /** Outgoing mail (magic links, invitations). */
  mailer: Mailer;
  /** Where attachment files live (see storage/storage.ts). */
  storage: FileStorage;
  /** Delivery attempts, recorded in batches over this process's pool. */
  attempts: AttemptRecorder;
  /** Receivers that hang, limited to a few deliveries at once (delivery/slow-hosts.ts). */
  slowHosts: SlowHosts;
  /** Webhooks with the event of their delivery, read in batches over this process's pool. */
  webhookReads: WebhookReads;
  /** Organizations' callback secrets, read again once a minute. */
  callbackSecrets: CallbackSecrets;
  /** The key mail links are signed with. */
  mailLinkKey: MailLinkKey;
  /** The payment provider's client (null: billing answers 503). */
  payments: Payments | null;
  /** Slack's configuration (null: Slack answers 503). */
  slack: SlackConfig | null;
  /** Telegram's configuration (null: Telegram answers 503). */
  telegram: TelegramConfig | null;
  /** Discord's configuration (null: Discord answers 503). */
  discord: DiscordConfig | null;
  /** Microsoft Teams' configuration (null: Teams answers 503). */
  teams: TeamsConfig | null;
  /** Twilio's configuration, for SMS and WhatsApp (null: Twilio answers 503). */
  twilio: TwilioConfig | null;
  /** Resolved identities, invalidated by the database (absent: every request asks it). */
  credentials?: CredentialCache;
  /** Which organizations have webhooks or push devices (absent: always fan out). */
  orgFacts?: OrgFacts;
  /** Item events for this process's streams (resource process only). */
  events?: EventHub;
  /** Numbers events and links audit entries once their change committed (absent: the sweep does). */
  sequencer?: Sequencer;
  /** Fails requests fast while the database cannot be reached (absent: requests just wait). */
  database?: DatabaseWatch;
  /** Deliveries and answers counted by this process (domain-metrics.ts; absent: not counted). */
  metrics?: DomainMetrics;
};

/** The WWW-Authenticate challenge of a 401: it points agents at the resource metadata. */
export const bearerChallenge = (env: Env) =>
  `Bearer realm="beckon", resource_metadata="${env.RESOURCE_URL}/.well-known/oauth-protected-resource"`;
