import type { TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODE_NUMBER } from '@trpc/server';

/**
 * Every error code an answer can carry, with its HTTP status and what it means. The code is the
 * stable, machine-readable part of an error body (clients switch on it); `error` stays the
 * sentence for people. docs/api.md lists the same table (tests/src/foundation/error-codes.test.ts
 * holds them equal).
 */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    means: 'Malformed JSON, wrong types, unknown fields (`fields` names each)',
  },
  passkey_refused: {
    status: 400,
    means: 'A passkey answer failed verification (unknown passkey, used or expired challenge, bad signature)',
  },
  sign_in_refused: { status: 400, means: 'An external sign-in could not complete (state, code or profile)' },
  unauthorized: { status: 401, means: 'Missing, unknown, expired or revoked bearer token' },
  invalid_signature: {
    status: 401,
    means: 'A signed inbound request (Slack, Telegram, Discord, Teams, Twilio) failed its signature check',
  },
  plan_limit_exceeded: { status: 402, means: 'A plan limit was reached (`key`, `limit`, `current`)' },
  permission_denied: { status: 403, means: 'The caller lacks a permission (`required` names it)' },
  session_required: { status: 403, means: "The operation needs a signed-in person's session" },
  system_role: { status: 403, means: 'System roles cannot be edited' },
  agent_may_not_answer: { status: 403, means: 'The item collects approvals from people only' },
  creator_may_not_answer: { status: 403, means: "The item's creator may not approve it" },
  not_the_requester: {
    status: 403,
    means: 'Only the credential that made a gate request can record its grant',
  },
  reauth_required: {
    status: 403,
    means:
      'The item needs a fresh verification to answer (`require_reauth`, `item_url`): answer it in the dashboard',
  },
  other_email: { status: 403, means: 'The invitation is for another email address' },
  recipient_may_not_answer: {
    status: 403,
    means: 'The person a notification was sent to may no longer answer items',
  },
  not_found: { status: 404, means: "Unknown id, or one of another organization's" },
  no_receipt: { status: 404, means: 'The item is not decided: it has no receipt yet' },
  method_not_allowed: { status: 405, means: 'The route does not answer this method' },
  invalid_status: { status: 409, means: "The item's status does not allow the move (`status` names it)" },
  no_form: { status: 409, means: 'The item has no form to answer' },
  already_answered: { status: 409, means: 'This person already answered the item' },
  claimed: { status: 409, means: 'Someone else holds the claim (`claimed_by`)' },
  not_a_gate_request: { status: 409, means: 'The item is not a gate request' },
  no_time_granted: { status: 409, means: 'The gate answer grants no time (`status`, `decision`)' },
  name_taken: { status: 409, means: 'The name or slug is taken' },
  already_member: { status: 409, means: 'Already a member (of the organization or the team)' },
  last_owner: { status: 409, means: 'The organization must keep an Owner' },
  not_on_call: {
    status: 409,
    means: 'A swapped span is not wholly the person’s shift (`spans` names `mine`, `theirs`)',
  },
  policy_in_use: {
    status: 409,
    means: 'Channels or templates name the escalation policy (`channels`, `templates` list them)',
  },
  role_in_use: { status: 409, means: 'The role has members (`members`) or an open invitation offers it' },
  personal_workspace: { status: 409, means: 'A personal workspace stays on the Free plan' },
  already_subscribed: { status: 409, means: 'The organization already has a subscription' },
  no_billing_account: { status: 409, means: 'The organization has no billing account yet' },
  slack_not_connected: { status: 409, means: 'No Slack workspace is connected' },
  telegram_not_connected: { status: 409, means: 'No Telegram bot is connected' },
  discord_not_connected: { status: 409, means: 'No Discord application is connected' },
  teams_not_connected: { status: 409, means: 'No Microsoft Teams bot is connected' },
  twilio_not_connected: { status: 409, means: 'No Twilio account is connected' },
  phone_taken: { status: 409, means: 'Another member of the organization uses this phone number' },
  notification_used: { status: 409, means: "A notification's answer token was used already" },
  request_in_progress: { status: 409, means: 'A request with this Idempotency-Key is still in progress' },
  member_elsewhere: {
    status: 409,
    means: 'The person also belongs to another organization: only they can erase themselves',
  },
  personal_workspace_kept: {
    status: 409,
    means: 'A personal workspace is deleted with its person only (their erasure)',
  },
  audit_chain_broken: { status: 409, means: 'The audit chain is broken (`broken` names the first link)' },
  invitation_inactive: { status: 410, means: 'The invitation was revoked, used up or has expired' },
  notification_expired: { status: 410, means: "A notification's answer token has expired" },
  phone_code_expired: {
    status: 410,
    means: 'The phone verification code expired or was tried too often: ask for a new one',
  },
  payload_too_large: { status: 413, means: 'Body or attachment over the limit (`limit` in bytes)' },
  unsupported_media_type: { status: 415, means: 'The body is not JSON' },
  validation_failed: { status: 422, means: "The values do not fit the item's form (`fields` names each)" },
  confirmation_mismatch: {
    status: 422,
    means: 'The confirmation does not repeat what was asked for (the slug, the email address)',
  },
  idempotency_key_reused: { status: 422, means: 'The Idempotency-Key was used with a different request' },
  rate_limited: { status: 429, means: 'Rate limited (`Retry-After`)' },
  internal_error: { status: 500, means: 'Internal error' },
  provider_unreachable: { status: 502, means: 'An external sign-in provider could not be reached' },
  database_unavailable: { status: 503, means: 'The database cannot be reached (`Retry-After`)' },
  storage_unavailable: { status: 503, means: 'The attachment store cannot be reached (`Retry-After`)' },
  stream_unavailable: { status: 503, means: 'The event stream is not running in this process' },
  billing_not_configured: { status: 503, means: 'Billing is not configured on this server' },
  slack_not_configured: { status: 503, means: 'Slack is not configured on this server' },
  telegram_not_configured: { status: 503, means: 'Telegram is not configured on this server' },
  discord_not_configured: { status: 503, means: 'Discord is not configured on this server' },
  teams_not_configured: { status: 503, means: 'Microsoft Teams is not configured on this server' },
  twilio_not_configured: { status: 503, means: 'Twilio (SMS and WhatsApp) is not configured on this server' },
  service_unavailable: { status: 503, means: 'A process behind the gateway is not up (`Retry-After`)' },
} as const satisfies Record<string, { status: number; means: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes answered with a given HTTP status. */
export type ErrorCodeOf<S extends number> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] extends S ? C : never;
}[ErrorCode];

/**
 * An error answer's body (docs/api.md): `error` (the sentence), `code` (stable, from
 * ERROR_CODES), plus fields that depend on the status.
 */
export type ErrorBody = { error: string; code: ErrorCode } & Record<string, unknown>;

/** A tRPC error as clients receive it: the REST status and body under `data`. */
export type ErrorShape = {
  code: TRPC_ERROR_CODE_NUMBER;
  message: string;
  data: { code: TRPC_ERROR_CODE_KEY; httpStatus: number; path?: string; body: ErrorBody };
};
