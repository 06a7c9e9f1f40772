import path from 'node:path';
import { CredentialCache } from './auth/credential-cache';
import { Invalidations } from './caches/invalidations';
import { OrgFacts } from './caches/org-facts';
import { type Clock, systemClock } from './clock';
import { connect } from './database';
import { DatabaseWatch } from './database-watch';
import { AttemptRecorder } from './delivery/attempts';
import { CallbackSecrets } from './delivery/callback-secrets';
import { SlowHosts } from './delivery/slow-hosts';
import { WebhookReads } from './delivery/webhook-reads';
import type { Deps } from './deps';
import { createDomainMetrics } from './domain-metrics';
import type { Env } from './env';
import { createLogger, type Logger } from './log';
import { MailLinkKey } from './mail/links';
import { createMailer } from './mail/mailer';
import { createPayments, syncPlanPrices } from './modules/billing/payments';
import { createDiscordConfig } from './modules/discord/discord-config';
import { createSlackConfig } from './modules/slack/slack-config';
import { createTeamsConfig } from './modules/teams/teams-config';
import { createTelegramConfig } from './modules/telegram/telegram-config';
import { createTwilioConfig } from './modules/twilio/twilio-config';
import { EventHub } from './realtime/event-hub';
import { Sequencer } from './realtime/sequencer';
import { s3Storage } from './storage/s3-storage';
import { type FileStorage, localStorage } from './storage/storage';
import { traceQueries } from './tracing/query-spans';

export type ProcessKind = 'resource' | 'auth' | 'worker';

export type Composed = { deps: Deps; close: () => Promise<void> };

/**
 * The composition root: the dependencies of one process, for the processes themselves and the
 * test harness alike. The resource process also gets the invalidated caches and the event hub
 * (each with its own listening connection) and writes the plans' prices at start.
 */
export async function createDeps(
  kind: ProcessKind,
  env: Env,
  options: { clock?: Clock; log?: Logger } = {},
): Promise<Composed> {
  if (!env.DATABASE_URL) throw new Error(`the ${kind} process needs DATABASE_URL (pnpm start sets it)`);
  const url = env.DATABASE_URL;
  const log = options.log ?? createLogger(env, `beckon-${kind}`);
  const clock = options.clock ?? systemClock;
  const sql = connect(env, url, `beckon-${kind}`);
  traceQueries(sql);
  const database = new DatabaseWatch(url, env.DATABASE_WAIT_MS, (down) =>
    down ? log.error('database unreachable: requests answer 503') : log.warn('database reachable again'),
  );
  const resource = kind === 'resource';
  const credentials =
    resource && env.IDENTITY_CACHE
      ? new CredentialCache(() => clock().getTime(), env.IDENTITY_CACHE_ENTRIES)
      : undefined;
  const orgFacts = resource && env.IDENTITY_CACHE ? new OrgFacts() : undefined;
  const listener =
    credentials && orgFacts ? await new Invalidations([credentials, orgFacts]).listen(url) : undefined;
  const sequencer = new Sequencer(sql);
  const events = resource ? new EventHub(sql, sequencer) : undefined;
  await events?.listen(url);
  const mailer = createMailer(env, log);
  const storage = createStorage(env, log, resource);
  const metrics = createDomainMetrics();
  const deps: Deps = {
    env,
    sql,
    log,
    clock,
    mailer,
    storage,
    attempts: new AttemptRecorder(sql),
    slowHosts: new SlowHosts(env.DELIVERY_SLOW_HOST_SLOTS),
    webhookReads: new WebhookReads(sql),
    callbackSecrets: new CallbackSecrets(),
    mailLinkKey: new MailLinkKey(env),
    payments: createPayments(env),
    slack: createSlackConfig(env),
    telegram: createTelegramConfig(env),
    discord: createDiscordConfig(env),
    teams: createTeamsConfig(env),
    twilio: createTwilioConfig(env),
    credentials,
    orgFacts,
    events,
    sequencer,
    database,
    metrics,
  };
  if (resource) await syncPlanPrices(sql, env);
  return {
    deps,
    close: async () => {
      await listener?.close();
      await events?.close();
      mailer.close();
      await database.close();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * The attachment store STORAGE names. A resource process asks the bucket once at start and logs
 * what is wrong (missing bucket, refused credentials, no answer) without refusing to start:
 * every other route works without it, and uploads and downloads answer 503 until it is fixed.
 */
function createStorage(env: Env, log: Logger, resource: boolean): FileStorage {
  if (env.STORAGE === 'local') return localStorage(path.resolve(env.DATA_DIR, 'attachments'));
  if (!env.S3_BUCKET || !env.S3_REGION) throw new Error('STORAGE=s3 needs S3_BUCKET and S3_REGION');
  const storage = s3Storage(
    {
      bucket: env.S3_BUCKET,
      region: env.S3_REGION,
      endpoint: env.S3_ENDPOINT,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
      prefix: env.S3_PREFIX,
      credentials:
        env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
          : undefined,
    },
    log,
  );
  if (resource) void storage.check().catch(() => {});
  return storage;
}
