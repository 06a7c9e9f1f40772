import type { Meta } from '@beckon/contracts/meta';
import { SIGN_IN_LIMITED_ROUTES } from './sign-in-rate-limit';

/** An error status an operation answers, with what it means there when more than the generic. */
export type DocumentedError = { status: string; description?: string; schema?: string };

/**
 * Errors a service throws beyond those of its route's shape, by `<METHOD> <path>` of the document
 * (the surface's prefix left out): the status and what it means for that operation. Read from the
 * services (AppError.conflict, gone, validationFailed, unavailable, paymentRequired; every
 * operation with a credential documents 403 already). `completeness.test.ts` fails on a key
 * that names no operation.
 */
export const THROWN: Record<string, Record<string, string>> = {
  'POST /items/{id}/answer': {
    '409':
      'The item is not open, has no form, or this person already answered it (`status` names its status)',
    '422': "The values do not fit the item's form (`fields` names each one)",
  },
  ...Object.fromEntries(
    [
      'ack',
      'dismiss',
      'restore',
      'withdraw',
      'snooze',
      'unsnooze',
      'pin',
      'unpin',
      'archive',
      'unarchive',
    ].map((action) => [
      `POST /items/{id}/${action}`,
      { '409': 'The status machine does not allow this move now (`status` names the current status)' },
    ]),
  ),
  'POST /items/{id}/claim': {
    '409': 'The item is not open, or someone else holds the claim',
  },
  'POST /items/{id}/attachments': {
    '503': 'The attachment store cannot be reached (Retry-After says when to try again)',
  },
  'POST /channels': { '409': 'A channel with this name already exists' },
  'POST /admin/agents': { '402': 'The plan allows no more agents' },
  'POST /admin/users/{user_id}/role': { '409': 'The organization must keep an Owner' },
  'POST /admin/users/{user_id}/deactivate': { '409': 'The organization must keep an Owner' },
  'PATCH /admin/org': { '409': 'The slug is taken' },
  'POST /admin/roles': { '409': 'A role with this name already exists' },
  'PATCH /admin/roles/{role_id}': { '409': 'A role with this name already exists' },
  'DELETE /admin/roles/{role_id}': {
    '409': 'The role has members (`members` counts them) or is offered by an open invitation',
  },
  'POST /admin/teams': {
    '402': 'The plan allows no more teams',
    '409': 'A team with this slug already exists',
  },
  'PATCH /admin/teams/{team_id}': { '409': 'A team with this slug already exists' },
  'POST /admin/teams/{team_id}/members': { '409': 'Already a member of the team' },
  'POST /webhooks': { '402': 'The plan allows no more webhooks' },
  'POST /escalation-policies': { '409': 'An escalation policy with this name already exists' },
  'PUT /escalation-policies/{id}': { '409': 'An escalation policy with this name already exists' },
  'DELETE /escalation-policies/{id}': {
    '409': 'Channels or templates name the policy (`channels`, `templates` list them)',
  },
  'POST /schedules/{id}/swaps': { '409': 'A span is not wholly the person’s shift (`spans` names which)' },
  'GET /billing/subscription': { '503': 'Billing is not configured on this server' },
  'POST /billing/checkout': {
    '409': 'A personal workspace stays on the Free plan, or the organization already has this plan',
    '503': 'Billing is not configured on this server',
  },
  'POST /billing/portal': {
    '409': 'The organization has no billing account yet: subscribe first',
    '503': 'Billing is not configured on this server',
  },
  ...Object.fromEntries(
    [
      'GET /slack/connection',
      'DELETE /slack/connection',
      'GET /slack/routes',
      'DELETE /slack/routes/{channel_id}',
      'POST /slack/links',
    ].map((route) => [route, { '503': 'Slack is not configured on this server' }]),
  ),
  'POST /slack/install': {
    '402': 'The plan allows no more Slack workspaces',
    '503': 'Slack is not configured on this server',
  },
  'GET /slack/channels': {
    '409': 'No Slack workspace is connected',
    '503': 'Slack is not configured on this server',
  },
  'PUT /slack/routes/{channel_id}': {
    '409': 'No Slack workspace is connected',
    '503': 'Slack is not configured on this server',
  },
  ...Object.fromEntries(
    (['telegram', 'discord', 'teams'] as const).flatMap((app) => {
      const name = { telegram: 'Telegram', discord: 'Discord', teams: 'Microsoft Teams' }[app];
      const what = { telegram: 'Telegram bot', discord: 'Discord application', teams: 'Microsoft Teams bot' }[
        app
      ];
      const unavailable = { '503': `${name} is not configured on this server` };
      const notConnected = { '409': `No ${what} is connected`, ...unavailable };
      return [
        [`GET /${app}/connection`, unavailable],
        [
          `PUT /${app}/connection`,
          {
            '400':
              app === 'teams'
                ? 'Microsoft Entra does not accept the app id and secret'
                : `${name} does not accept the token`,
            '402': `The plan allows no ${what}`,
            ...unavailable,
          },
        ],
        [`DELETE /${app}/connection`, unavailable],
        [`GET /${app}/routes`, unavailable],
        [`PUT /${app}/routes/{channel_id}`, notConnected],
        [`DELETE /${app}/routes/{channel_id}`, unavailable],
        [`POST /${app}/links`, notConnected],
        [`GET /${app}/links/me`, unavailable],
        ...(app === 'teams' ? [[`GET /${app}/conversations`, unavailable]] : []),
      ];
    }),
  ),
  ...Object.fromEntries(
    ['GET /twilio/connection', 'DELETE /twilio/connection', 'GET /twilio/phone', 'DELETE /twilio/phone'].map(
      (route) => [route, { '503': 'Twilio is not configured on this server' }],
    ),
  ),
  'PUT /twilio/connection': {
    '402': 'The plan allows no more Twilio accounts',
    '503': 'Twilio is not configured on this server',
  },
  'PUT /twilio/phone': {
    '409': 'No Twilio account is connected, or another member uses the number',
    '503': 'Twilio is not configured on this server',
  },
  'POST /twilio/phone/verify': {
    '410': 'The code expired or was tried too often',
    '503': 'Twilio is not configured on this server',
  },
  // The account API.
  'POST /dev-login': { '404': 'Development sign-in is not enabled' },
  'POST /orgs': { '409': 'The slug is taken' },
  'POST /switch-org': { '404': 'Not a member of that organization' },
  'POST /api-keys': { '404': 'No such agent in this organization' },
  'POST /api-keys/revoke': { '404': 'No such key in this organization' },
  'GET /invitations/{code}': { '410': 'The invitation was revoked, used or has expired' },
  'POST /invitations/accept': {
    '402': 'The plan allows no more seats',
    '404': 'No such invitation',
    '409': 'Already a member of this organization',
    '410': 'The invitation was revoked, used or has expired',
  },
};

type Operation = { security?: unknown[]; parameters?: { in: string }[]; requestBody?: unknown };

/** A creation that honours Idempotency-Key (trpc/procedures.ts). */
export const isIdempotent = (meta: Meta | undefined) => meta?.status === 201 && !meta.oneTimeSecret;

/**
 * Every error status an operation can answer, from what stands in front of its procedure (the
 * rate limit, the database guard, authentication and permissions, path ids, the JSON body, the
 * Idempotency-Key store) and what its service throws (THROWN).
 */
export function documentedErrors(
  route: string,
  operation: Operation,
  meta: Meta | undefined,
  surface: { prefix: string; rateLimitsEveryRoute: boolean },
): DocumentedError[] {
  const found: DocumentedError[] = [{ status: '400' }, { status: '500' }, { status: '503' }];
  const [method = '', path = ''] = route.split(' ');
  const limited =
    surface.rateLimitsEveryRoute ||
    `${method} ${surface.prefix}${path.replace(/\{(\w+)\}/g, ':$1')}` in SIGN_IN_LIMITED_ROUTES;
  if (limited) found.push({ status: '429' });
  if (operation.security?.length) found.push({ status: '401' }, { status: '403' });
  if (operation.parameters?.some((p) => p.in === 'path')) found.push({ status: '404' });
  if (operation.requestBody) found.push({ status: '413' }, { status: '415' });
  if (isIdempotent(meta)) {
    found.push(
      { status: '409', description: 'A request with this Idempotency-Key is still in progress' },
      {
        status: '422',
        description: 'The Idempotency-Key was used with a different request',
        schema: 'Error',
      },
    );
  }
  for (const [status, description] of Object.entries(THROWN[route] ?? {})) {
    found.push({ status, description });
  }
  return found;
}
