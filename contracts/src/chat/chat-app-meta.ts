import type { Meta } from '../meta';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The REST side of a chat app's operations (Telegram, Discord, Microsoft Teams): each one
 * protected, under `/<app>`, tagged with the app, its description ending with the 503 the app's
 * operations answer on a server without its configuration.
 */
export function chatAppRoute(app: string, label: string) {
  const unavailable = `Without ${label} configuration: 503 {"error":"${app} is not configured"}.`;
  return (method: Method, path: `/${string}`, summary: string, description?: string) =>
    ({
      openapi: {
        method,
        path: `/${app}${path}` as `/${string}`,
        protect: true,
        tags: [app],
        summary,
        description: description ? `${description} ${unavailable}` : unavailable,
      },
    }) satisfies Meta;
}
