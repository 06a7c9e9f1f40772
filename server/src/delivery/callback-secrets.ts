import type { Sql } from '@beckon/db';

/** How long a read callback secret is used before it is read again. */
const SECRET_TTL_MS = 60_000;
/** More organizations than this delivering at once: start over rather than grow. */
const MAX_ENTRIES = 10_000;

/**
 * Organizations' callback secrets, read once a minute at most per organization (callback
 * delivery is a hot path); one per process, made by createDeps.
 */
export class CallbackSecrets {
  private readonly secrets = new Map<string, { secret: string; readAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async get(sql: Sql, orgId: string): Promise<string | null> {
    const cached = this.secrets.get(orgId);
    if (cached && this.now() - cached.readAt < SECRET_TTL_MS) return cached.secret;
    const [org] = await sql<{ callback_secret: string }[]>`
      select callback_secret from organizations where id = ${orgId}`;
    if (!org) return null;
    if (this.secrets.size >= MAX_ENTRIES) this.secrets.clear();
    this.secrets.set(orgId, { secret: org.callback_secret, readAt: this.now() });
    return org.callback_secret;
  }
}
