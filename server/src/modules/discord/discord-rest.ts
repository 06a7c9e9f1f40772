import type { DiscordConfig } from './discord-config';

/** Discord's REST calls are answered within this long, or the job tries again later. */
const DISCORD_TIMEOUT_MS = 15_000;

/** A refusal of Discord's API: its HTTP status, and its JSON error code and message when it sent them. */
export class DiscordApiError extends Error {
  constructor(
    readonly status: number | null,
    readonly code: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'DiscordApiError';
  }
}

/**
 * A client of Discord's REST API for one bot (`Authorization: Bot <token>`), on the configured
 * base URL. It does not retry: a failed delivery fails its job, which graphile-worker runs again.
 */
export function discordClient(config: DiscordConfig, token: string) {
  const call = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${config.apiUrl}${route}`, {
        method,
        headers: {
          authorization: `Bot ${token}`,
          'user-agent': 'DiscordBot (https://github.com/beckon, 1)',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(DISCORD_TIMEOUT_MS),
      });
    } catch (error) {
      throw new DiscordApiError(null, null, error instanceof Error ? error.message : String(error));
    }
    const text = await res.text();
    const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!res.ok) {
      const code = typeof json.code === 'number' ? json.code : null;
      throw new DiscordApiError(res.status, code, String(json.message ?? res.statusText));
    }
    return json as T;
  };
  return {
    url: (route: string) => `${config.apiUrl}${route}`,
    get: <T>(route: string) => call<T>('GET', route),
    post: <T>(route: string, body: unknown) => call<T>('POST', route, body),
    patch: <T>(route: string, body: unknown) => call<T>('PATCH', route, body),
    put: <T>(route: string, body: unknown) => call<T>('PUT', route, body),
  };
}

export type DiscordClient = ReturnType<typeof discordClient>;
