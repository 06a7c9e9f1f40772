// Longer than 300 lines: every setting of the service in one validated schema, the one place that reads process.env.
import { z } from 'zod';

/** The only place that reads process.env: every setting, validated once at boot. */
const bool = z.stringbool({ truthy: ['true', '1', 'yes'], falsy: ['false', '0', 'no', ''] });
const port = z.coerce.number().int().min(0).max(65535);
/** An address people and clients open: `localhost:3000` alone would parse as a URL of scheme `localhost:`. */
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
const optional = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
const tenChars = optional.pipe(z.string().length(10, 'must be 10 characters').optional());

const WINDOW_UNITS = { s: 1, m: 60, h: 3600 } as const;
/** A rate limit as `<requests>/<window>`, e.g. `3000/1m`, `60/15m`, `20/1h`, `10/30s`. */
const rate = z
  .string()
  .regex(/^\s*\d+\s*\/\s*\d*\s*[smh]\s*$/, 'must be <requests>/<window>, e.g. 3000/1m, 60/15m or 20/1h')
  .transform((value) => {
    const [count = '', window = ''] = value.replace(/\s+/g, '').split('/');
    const unit = window.slice(-1) as keyof typeof WINDOW_UNITS;
    const amount = window.length > 1 ? Number(window.slice(0, -1)) : 1;
    return { limit: Number(count), windowSeconds: amount * WINDOW_UNITS[unit] };
  })
  .refine(
    (r) => r.limit >= 1 && r.windowSeconds >= 1,
    'needs at least 1 request in a window of at least 1 s',
  );
export type RateSetting = z.output<typeof rate>;

/**
 * Which proxies may set X-Forwarded-For (Fastify's trustProxy): `false`, `true` (anyone: only
 * behind a proxy that always overwrites it), a hop count, or a comma-separated list of addresses,
 * CIDR ranges and the names loopback, linklocal, uniquelocal.
 */
const trustProxy = z.string().transform((value): boolean | number | string[] => {
  const v = value.trim().toLowerCase();
  if (v === 'false' || v === '0' || v === '') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
});

/** A comma-separated list of web origins (scheme://host[:port]), each normalized. */
const origins = z.string().transform((value, ctx) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .flatMap((part) => {
      const url = URL.parse(part);
      if (
        url &&
        (url.protocol === 'https:' || url.protocol === 'http:') &&
        url.origin === part.replace(/\/$/, '')
      )
        return [url.origin];
      ctx.addIssue({ code: 'custom', message: `${part} is not an origin (scheme://host[:port])` });
      return [];
    }),
);

export const ZEnv = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** OpenTelemetry: spans go over OTLP/HTTP to this collector when set (tracing/tracing.ts). */
    OTEL_EXPORTER_OTLP_ENDPOINT: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    /** The traces URL itself, when not `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    /** The service name on spans (default `beckon-<process>`: resource, auth, worker, gateway). */
    OTEL_SERVICE_NAME: optional,
    HOST: z.string().min(1).default('127.0.0.1'),
    PORT: port.default(3000),
    AUTH_PORT: port.default(3001),
    DATA_DIR: z.string().min(1).default('./.data'),
    DATABASE_URL: optional.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
    /** How long a request waits for a database that does not answer before a 503 (database-watch.ts). */
    DATABASE_WAIT_MS: z.coerce.number().int().min(100).default(5000),
    EMBEDDED_POSTGRES_PORT: port.default(5488),
    RUN_WORKER: bool.default(true),
    IDENTITY_CACHE: bool.default(true),
    IDENTITY_CACHE_ENTRIES: z.coerce.number().int().positive().default(10_000),
    WORKER_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(2000),
    DELIVERY_RETRY_BASE_MS: z.coerce.number().int().min(1).default(10_000),
    /** How long a callback or webhook waits for its receiver (connection, answer, body). */
    DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** Deliveries at once, per process, to a receiver whose last delivery timed out (slow-hosts.ts). */
    DELIVERY_SLOW_HOST_SLOTS: z.coerce.number().int().min(1).max(1000).default(2),
    STREAM_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
    /** On SIGTERM a process exits within this long, streams and waits open or not (processes/run.ts). */
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
    /** The most events a Last-Event-ID resume replays, and live events it holds meanwhile. */
    STREAM_REPLAY_MAX_EVENTS: z.coerce.number().int().min(1).default(10_000),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
    /** Jobs of the internal pool (deadlines, escalations, maintenance: jobs/worker.ts) run at once. */
    WORKER_INTERNAL_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
    /** A worker pool silent this long (lock free, no heartbeat) is dead: its jobs are handed back. */
    WORKER_LIVENESS_TIMEOUT_MS: z.coerce.number().int().min(500).default(20_000),
    /** How often every live worker looks for dead pools. */
    WORKER_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(15_000),
    /** How often the worker numbers events and links audit entries whose writer stopped first. */
    SEQUENCER_SWEEP_MS: z.coerce.number().int().min(100).default(1_000),
    /** Unset: http://localhost:<AUTH_PORT> and http://localhost:<PORT> (the transform below). */
    ISSUER_URL: optional.pipe(httpUrl.optional()),
    RESOURCE_URL: optional.pipe(httpUrl.optional()),
    APP_URL: httpUrl.default('http://localhost:5173'),
    /** The WebAuthn relying party id of passkeys: APP_URL's host unless a parent domain is named. */
    PASSKEY_RP_ID: optional,
    WEB_GATEWAY: bool.default(true),
    WEB_DIST: optional,
    /** The gateway's port when not APP_URL's (behind another proxy, APP_URL is the public one). */
    GATEWAY_PORT: optional.pipe(z.coerce.number<string | undefined>().int().min(1).max(65535).optional()),
    OAUTH_SIGNING_KEY: optional.pipe(z.string().min(32, 'must be at least 32 bytes').optional()),
    DEV_LOGIN_ENABLED: bool.default(false),
    ALLOW_PRIVATE_DESTINATIONS: bool.default(false),
    SMTP_HOST: optional,
    SMTP_PORT: port.default(587),
    SMTP_USER: optional,
    SMTP_PASS: optional,
    SMTP_FROM: z.string().min(3).default('Beckon <no-reply@beckon.localhost>'),
    /** Signs the answer and unsubscribe links of item mails (else derived from the OAuth signing key). */
    EMAIL_LINK_SECRET: optional.pipe(z.string().min(32, 'must be at least 32 bytes').optional()),
    /** How long an answer link of an item mail works. */
    EMAIL_LINK_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .default(72),
    IDP_A_CLIENT_ID: optional,
    IDP_A_CLIENT_SECRET: optional,
    IDP_B_CLIENT_ID: optional,
    IDP_B_CLIENT_SECRET: optional,
    IDP_C_CLIENT_ID: optional,
    IDP_C_TEAM_ID: tenChars,
    IDP_C_KEY_ID: tenChars,
    IDP_C_PRIVATE_KEY: optional.pipe(
      z.string().includes('PRIVATE KEY', { message: 'must be a PEM private key' }).optional(),
    ),
    PAYMENT_SECRET_KEY: optional,
    PAYMENT_WEBHOOK_SECRET: optional,
    PAYMENT_PRICE_TEAM: optional,
    PAYMENT_PRICE_ENTERPRISE: optional,
    /** The payment provider's API base, when not its own (a local fake in tests, a mock server). */
    PAYMENT_API_URL: optional.pipe(z.url().optional()),
    PUSH_SERVICE_ACCOUNT_JSON: optional.pipe(
      z
        .string()
        .refine((v) => isJsonObject(v), 'must be a service-account key in JSON')
        .optional(),
    ),
    PUSH_VAPID_KEY: optional,
    /** Deadline of one push request, answer included (like a webhook's 15 s). */
    PUSH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
    /** The private half of the VAPID pair (signs browser pushes); with PUSH_VAPID_KEY. */
    PUSH_VAPID_PRIVATE_KEY: optional,
    PUSH_API_KEY: optional,
    PUSH_PROJECT_ID: optional,
    PUSH_APP_ID: optional,
    PUSH_MESSAGING_SENDER_ID: optional,
    /** Slack (docs/configuration.md): the app's OAuth client, its request-signing secret, and the token key. */
    SLACK_CLIENT_ID: optional,
    SLACK_CLIENT_SECRET: optional,
    SLACK_SIGNING_SECRET: optional,
    /** Encrypts the workspaces' bot tokens at rest (AES-256-GCM, key derived with HKDF). */
    SLACK_TOKEN_KEY: optional.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    /** Slack's Web API base, when not its own (a local fake in tests). */
    SLACK_API_URL: optional.pipe(z.url().optional()),
    /** Telegram (docs/channels.md): encrypts the bots' tokens at rest and derives their webhook secrets. */
    TELEGRAM_TOKEN_KEY: optional.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    /** Telegram's Bot API base, when not its own (a local Bot API server, or a fake in tests). */
    TELEGRAM_API_URL: optional.pipe(z.url().optional()),
    /** Discord (docs/channels.md): encrypts the applications' bot tokens at rest. */
    DISCORD_TOKEN_KEY: optional.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    /** Discord's REST API base, when not its own (a local fake in tests). */
    DISCORD_API_URL: optional.pipe(z.url().optional()),
    /** Microsoft Teams (docs/channels.md): encrypts the bots' client secrets at rest. */
    TEAMS_TOKEN_KEY: optional.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    /** Bot Framework's OpenID metadata, which names the keys inbound activities are signed with. */
    TEAMS_OPENID_URL: optional.pipe(z.url().optional()),
    /** Microsoft Entra's sign-in origin, where a bot gets its tokens for the Bot Connector. */
    TEAMS_LOGIN_URL: optional.pipe(z.url().optional()),
    /** Twilio, for SMS and WhatsApp (docs/configuration.md): encrypts the organizations' auth tokens at rest. */
    TWILIO_TOKEN_KEY: optional.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
    /** Twilio's REST API origin, when not its own (a local fake in tests). */
    TWILIO_API_URL: optional.pipe(z.url().optional()),
    TRUST_PROXY: trustProxy.default(['loopback']),
    /** Rate limits (docs/security.md): per credential on the API, per client address and email on sign-in. */
    RATE_LIMIT_ENABLED: bool.default(true),
    RATE_LIMIT_API: rate.default({ limit: 3000, windowSeconds: 60 }),
    RATE_LIMIT_SIGN_IN: rate.default({ limit: 60, windowSeconds: 900 }),
    RATE_LIMIT_SIGN_IN_EMAIL: rate.default({ limit: 5, windowSeconds: 900 }),
    RATE_LIMIT_VERIFY: rate.default({ limit: 120, windowSeconds: 900 }),
    RATE_LIMIT_TOKEN: rate.default({ limit: 300, windowSeconds: 900 }),
    RATE_LIMIT_REGISTER: rate.default({ limit: 20, windowSeconds: 3600 }),
    /**
     * What one connection may hold (docs/security.md): the time to send a request's headers and
     * its whole body, a silent socket's life, kept-alive sockets, bodies in flight per address.
     */
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).default(120_000),
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).default(10_000),
    HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(0).default(0),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(72_000),
    HTTP_MAX_REQUESTS_PER_SOCKET: z.coerce.number().int().min(0).default(1000),
    HTTP_MAX_BODIES_PER_ADDRESS: z.coerce.number().int().min(1).default(32),
    /**
     * What callers may hold open in one resource process at once (docs/security.md): event
     * streams, WebSockets and MCP calls that may wait, per credential, per user and in all.
     */
    HOLDS_PER_CREDENTIAL: z.coerce.number().int().min(1).default(100),
    HOLDS_PER_USER: z.coerce.number().int().min(1).default(200),
    HOLDS_PER_PROCESS: z.coerce.number().int().min(1).default(2000),
    /** A list page ends early, with its cursor, once its items come to this many bytes. */
    LIST_PAGE_MAX_BYTES: z.coerce.number().int().min(65_536).default(2_097_152),
    /** How often each process adds its local API counts to the shared ones. */
    RATE_LIMIT_SYNC_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
    /** Where attachment files live: `local` (DATA_DIR/attachments) or `s3` (an S3-compatible bucket). */
    STORAGE: z.enum(['local', 's3']).default('local'),
    S3_BUCKET: optional.pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$/, 'must be a bucket name (letters, digits, . _ -)')
        .optional(),
    ),
    S3_REGION: optional,
    /** An S3-compatible server's address (unset: the provider's own). */
    S3_ENDPOINT: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    S3_FORCE_PATH_STYLE: bool.default(false),
    /** Prepended to every object key. */
    S3_PREFIX: z
      .string()
      .regex(/^([A-Za-z0-9._-]+\/)*$/, 'must be empty or end with / (e.g. attachments/)')
      .default('attachments/'),
    S3_ACCESS_KEY_ID: optional,
    S3_SECRET_ACCESS_KEY: optional,
    /** Web origins besides the service's own allowed to call /mcp (comma-separated, e.g. https://app.example). */
    MCP_ALLOWED_ORIGINS: origins.default([]),
    /** MCP tool names: `service.notify` (dotted), `service_notify` (underscore), or by revision (auto). */
    MCP_TOOL_NAMES: z.enum(['auto', 'dotted', 'underscore']).default('auto'),
    /** Dynamically registered OAuth clients with nothing issued for this long are removed. */
    OAUTH_CLIENT_UNUSED_HOURS: z.coerce.number().int().min(1).default(24),
    /** Rows one statement of the retention and deletion jobs removes: each is a short transaction. */
    RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
    /**
     * How often each organization whose audit chain advanced gets a signed checkpoint, in
     * minutes: a divisor of 60 or whole hours dividing 24, so that it is a crontab line; 0 or
     * `off`: never.
     */
    AUDIT_CHECKPOINT_MINUTES: z
      .preprocess((v) => (v === 'off' ? 0 : v), z.coerce.number().int())
      .refine(
        (m) => m === 0 || (m > 0 && m < 60 && 60 % m === 0) || (m >= 60 && m % 60 === 0 && 1440 % m === 0),
        'must be 0 (off), a divisor of 60, or whole hours dividing 24 (60, 120, 180, 240, 360, 480, 720, 1440)',
      )
      .default(60),
  })
  .superRefine((env, ctx) => {
    // Without mail, POST /auth/magic-link answers the sign-in token to the caller: fine on this
    // machine, but a service reachable from elsewhere would hand anyone a session for any address.
    if (!env.SMTP_HOST && !isLoopbackHost(env.HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SMTP_HOST'],
        message: `is required when HOST (${env.HOST}) is not a loopback address (without it, sign-in links are returned to the caller)`,
      });
    }
    checkStorage(env, ctx);
    if (env.NODE_ENV !== 'production') return;
    if (!env.OAUTH_SIGNING_KEY) {
      ctx.addIssue({ code: 'custom', path: ['OAUTH_SIGNING_KEY'], message: 'is required in production' });
    }
    if (env.DEV_LOGIN_ENABLED) {
      ctx.addIssue({
        code: 'custom',
        path: ['DEV_LOGIN_ENABLED'],
        message: 'must not be true in production',
      });
    }
    // Without mail, sign-in links are answered to whoever asks for them (development only).
    if (!env.SMTP_HOST) {
      ctx.addIssue({
        code: 'custom',
        path: ['SMTP_HOST'],
        message: 'is required in production (without it, sign-in links are returned to the caller)',
      });
    }
  })
  .transform((env) => ({
    ...env,
    // The processes' own addresses on this machine, on the ports they listen on.
    ISSUER_URL: env.ISSUER_URL ?? `http://localhost:${env.AUTH_PORT}`,
    RESOURCE_URL: env.RESOURCE_URL ?? `http://localhost:${env.PORT}`,
  }));

export type Env = z.infer<typeof ZEnv>;

type StorageSettings = {
  STORAGE: 'local' | 's3';
  S3_BUCKET?: string | undefined;
  S3_REGION?: string | undefined;
  S3_ACCESS_KEY_ID?: string | undefined;
  S3_SECRET_ACCESS_KEY?: string | undefined;
};

/** STORAGE=s3 needs a bucket and a region; keys come in pairs; a bucket without STORAGE=s3 is a mistake. */
function checkStorage(env: StorageSettings, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (env.STORAGE !== 's3') {
    if (env.S3_BUCKET) issue('S3_BUCKET', 'is set but STORAGE is not s3: set STORAGE=s3 to use the bucket');
    return;
  }
  if (!env.S3_BUCKET) issue('S3_BUCKET', 'is required when STORAGE=s3');
  if (!env.S3_REGION) {
    issue(
      'S3_REGION',
      "is required when STORAGE=s3 (the bucket's region; us-east-1 for most S3-compatible servers)",
    );
  }
  if (!env.S3_ACCESS_KEY_ID !== !env.S3_SECRET_ACCESS_KEY) {
    issue(
      env.S3_ACCESS_KEY_ID ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID',
      "goes with the other of S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or leave both unset for the SDK's credential chain)",
    );
  }
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Parses the environment; a wrong value throws a ConfigError naming each variable at fault. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = ZEnv.safeParse(source);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}
