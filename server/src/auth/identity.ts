/**
 * What the credential is: a person's session (or OAuth token), an API key, an inbound webhook's
 * URL token, a signed link from a mail acting for the person it was sent to, or a Slack, Telegram,
 * Discord or Teams user linked to the person.
 */
/**
 * `mcp_elicitation`: the person behind an agent's credential, answering in their MCP client (a
 * form elicitation, or the MCP App).
 */
export type IdentitySource =
  | 'session'
  | 'api_key'
  | 'inbound_webhook'
  | 'email_link'
  | 'slack_link'
  | 'telegram_link'
  | 'discord_link'
  | 'teams_link'
  | 'push_link'
  | 'phone_link'
  | 'mcp_elicitation';

/** Who is calling, resolved from the bearer token; the tenant always comes from here. */
export type Identity = {
  userId: string;
  orgId: string;
  agentId: string | null;
  source: IdentitySource;
  /** Set when the token is an OAuth access token issued to a third-party client. */
  clientId: string | null;
  /** The credential's own id (session, API key, OAuth token hash, or inbound webhook). */
  credentialId: string;
  role: string;
  permissions: string[];
  /** Set for an API key created with `item_access: "own"`: only this agent's items are reachable. */
  itemsOfAgent?: string;
};

/** Reads the token of an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export type Actor = { type: 'user' | 'agent' | 'system' | 'policy'; id: string | null };

/** Who acts: the agent behind an API key, the inbound webhook itself (an agent), else the person. */
export const actorOf = (identity: Identity): Actor =>
  identity.agentId
    ? { type: 'agent', id: identity.agentId }
    : identity.source === 'inbound_webhook'
      ? { type: 'agent', id: identity.credentialId }
      : { type: 'user', id: identity.userId };

/** The service itself (deadlines, policies). */
export const SYSTEM: Actor = { type: 'system', id: null };

/** An item's timeout policy, deciding at the deadline (answered_by `{type: "policy", id: null}`). */
export const POLICY: Actor = { type: 'policy', id: null };
