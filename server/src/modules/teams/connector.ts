import { createHash } from 'node:crypto';
import type { TeamsConfig } from './teams-config';

/** Bot Connector and sign-in calls are answered within this long, or the job tries again later. */
const TEAMS_TIMEOUT_MS = 15_000;
/** The scope of a bot's token for the Bot Connector. */
const CONNECTOR_SCOPE = 'https://api.botframework.com/.default';
/** A token is used until this long before it expires. */
const EARLY_MS = 5 * 60_000;

/** A refusal of Microsoft Entra or the Bot Connector: its HTTP status (null: unreachable) and message. */
export class TeamsApiError extends Error {
  constructor(
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'TeamsApiError';
  }
}

export type BotCredentials = { appId: string; password: string; tenantId: string | null };

async function send(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TEAMS_TIMEOUT_MS) });
  } catch (error) {
    throw new TeamsApiError(null, error instanceof Error ? error.message : String(error));
  }
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    json = { message: text.slice(0, 200) };
  }
  if (!res.ok) {
    const error = json.error as { message?: string } | string | undefined;
    const message =
      (typeof error === 'object' ? error?.message : undefined) ??
      (typeof json.error_description === 'string' ? json.error_description : undefined) ??
      (typeof error === 'string' ? error : undefined) ??
      res.statusText;
    throw new TeamsApiError(res.status, message);
  }
  return json;
}

/**
 * The bot's Bot Connector token (OAuth client credentials at Microsoft Entra: the tenant of a
 * single-tenant bot, botframework.com for a multi-tenant one), kept until shortly before it expires.
 */
export async function botToken(config: TeamsConfig, bot: BotCredentials): Promise<string> {
  const cacheKey = createHash('sha256')
    .update(`${bot.appId}\n${bot.tenantId}\n${bot.password}`)
    .digest('hex');
  const cached = config.tokens.get(cacheKey);
  if (cached && cached.until > Date.now()) return cached.token;
  const tenant = bot.tenantId ?? 'botframework.com';
  const json = await send(`${config.loginUrl}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: bot.appId,
      client_secret: bot.password,
      scope: CONNECTOR_SCOPE,
    }),
  });
  const token = String(json.access_token ?? '');
  if (!token) throw new TeamsApiError(502, 'no access_token in the token response');
  const lifetime = Number(json.expires_in ?? 3600) * 1000;
  config.tokens.set(cacheKey, { token, until: Date.now() + Math.max(lifetime - EARLY_MS, 0) });
  return token;
}

/** Where a conversation's activities are, at the service URL Bot Framework named for it. */
export const activitiesUrl = (serviceUrl: string, conversationId: string, activityId?: string) =>
  `${serviceUrl.replace(/\/+$/, '')}/v3/conversations/${encodeURIComponent(conversationId)}/activities${
    activityId ? `/${encodeURIComponent(activityId)}` : ''
  }`;

/**
 * A client of the Bot Connector REST API for one bot: sends an activity to a conversation, replies
 * to one, or replaces one (PUT: a card updated in place). It does not retry: a failed delivery
 * fails its job, which graphile-worker runs again.
 */
export function connectorClient(config: TeamsConfig, bot: BotCredentials) {
  const call = async (method: string, url: string, activity: object) => {
    const token = await botToken(config, bot);
    return send(url, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(activity),
    });
  };
  return {
    send: async (serviceUrl: string, conversationId: string, activity: object) =>
      (await call('POST', activitiesUrl(serviceUrl, conversationId), activity)) as { id?: string },
    reply: (serviceUrl: string, conversationId: string, replyToId: string, activity: object) =>
      call('POST', activitiesUrl(serviceUrl, conversationId, replyToId), { ...activity, replyToId }),
    update: (serviceUrl: string, conversationId: string, activityId: string, activity: object) =>
      call('PUT', activitiesUrl(serviceUrl, conversationId, activityId), { ...activity, id: activityId }),
  };
}

export type ConnectorClient = ReturnType<typeof connectorClient>;
