import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import { hashToken } from '../auth/tokens';
import { fenceCaches } from '../caches/fence';
import type { Deps } from '../deps';
import { parseAccountId } from './account';

/**
 * Models whose id is a bearer value (the token itself): their payload is stored without it, so
 * the table holds only its SHA-256 (`id_hash`), like every other credential.
 */
const SECRET_IDS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'PushedAuthorizationRequest',
]);

/** Models issued from a grant: stored only while the grant exists. */
const GRANT_TOKENS = new Set(['AccessToken', 'RefreshToken']);

type Row = { payload: AdapterPayload; consumed_at: Date | null };

/**
 * oidc-provider's storage on `oauth_records`. Rows carry the user, organization and client of
 * their account (`<user_id>:<org_id>`) so the resource process resolves an access token with one
 * indexed query and no call to this process; `expires_at` comes from the injected clock, which
 * is the "now" the resolver compares with. Removing access tokens waits for the resource
 * processes' identity caches (fenceCaches), so a revoked token fails on the next request.
 */
export function postgresAdapter(deps: Pick<Deps, 'sql' | 'clock' | 'log'>): new (model: string) => Adapter {
  const { sql, clock } = deps;
  return class PostgresAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const account = parseAccountId(payload.accountId);
      const stored: AdapterPayload = { ...payload };
      if (SECRET_IDS.has(this.model)) delete stored.jti;
      const grantId = this.model === 'Grant' ? id : (payload.grantId ?? null);
      const clientId = payload.clientId ?? (this.model === 'Client' ? id : null);
      const expiresAt = expiresIn ? new Date(clock().getTime() + expiresIn * 1000) : null;
      // Tokens are stored only while their grant exists (locked against a concurrent revocation,
      // see consume): a token issued by a request that lost a reuse race is never stored.
      const fromGrant = GRANT_TOKENS.has(this.model) && grantId !== null;
      await sql`
        insert into oauth_records as r
          (model, id_hash, payload, grant_id, uid, user_code, user_id, org_id, client_id, created_at, expires_at)
        select ${this.model}, ${hashToken(id)}, ${sql.json(stored as never)}, ${grantId},
               ${payload.uid ?? null}, ${payload.userCode ?? null}, ${account?.userId ?? null},
               ${account?.orgId ?? null}, ${clientId}, ${clock()}, ${expiresAt}
         where not ${fromGrant} or exists (
           select 1 from oauth_records g where g.model = 'Grant' and g.grant_id = ${grantId} for share)
        on conflict (model, id_hash) do update
          set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
              user_code = excluded.user_code, user_id = excluded.user_id, org_id = excluded.org_id,
              client_id = excluded.client_id, expires_at = excluded.expires_at`;
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const [row] = await sql<Row[]>`
        select payload, consumed_at from oauth_records
         where model = ${this.model} and id_hash = ${hashToken(id)}
           and (expires_at is null or expires_at > ${clock()})`;
      return row ? this.restore(row, id) : undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const [row] = await sql<Row[]>`
        select payload, consumed_at from oauth_records
         where model = ${this.model} and uid = ${uid}
           and (expires_at is null or expires_at > ${clock()})`;
      return row ? this.restore(row) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const [row] = await sql<Row[]>`
        select payload, consumed_at from oauth_records
         where model = ${this.model} and user_code = ${userCode}
           and (expires_at is null or expires_at > ${clock()})`;
      return row ? this.restore(row) : undefined;
    }

    /**
     * Marks a code or refresh token used. The update is the check: when two requests race with
     * the same token, only one marks it; the other is a reuse, so the whole grant is revoked and
     * the request refused (oidc-provider's own "already used" check runs before this, not atomically).
     */
    async consume(id: string): Promise<void> {
      const hash = hashToken(id);
      const marked = await sql`update oauth_records set consumed_at = ${clock()}
                 where model = ${this.model} and id_hash = ${hash} and consumed_at is null returning 1`;
      if (marked.length > 0) return;
      const [row] = await sql<{ grant_id: string | null }[]>`
        select grant_id from oauth_records where model = ${this.model} and id_hash = ${hash}`;
      if (row?.grant_id) {
        // The grant first (it waits for tokens being stored under it), then everything it issued.
        await sql`delete from oauth_records where model = 'Grant' and grant_id = ${row.grant_id}`;
        await sql`delete from oauth_records where grant_id = ${row.grant_id}`;
        await fenceCaches(deps);
      }
      throw new errors.InvalidGrant('grant request is invalid');
    }

    async destroy(id: string): Promise<void> {
      await sql`delete from oauth_records where model = ${this.model} and id_hash = ${hashToken(id)}`;
      if (this.model === 'AccessToken') await fenceCaches(deps);
    }

    /**
     * oidc-provider calls this on every token model of a grant it revokes, in an order of its own:
     * the grant goes first, whichever model is asked (it waits for tokens being stored under it,
     * and none is stored once it is gone: upsert), so a token issued by a concurrent refresh
     * between two of these calls cannot outlive the revocation.
     */
    async revokeByGrantId(grantId: string): Promise<void> {
      await sql`delete from oauth_records where model = 'Grant' and grant_id = ${grantId}`;
      await sql`delete from oauth_records where model = ${this.model} and grant_id = ${grantId}`;
      if (this.model === 'AccessToken') await fenceCaches(deps);
    }

    private restore(row: Row, id?: string): AdapterPayload {
      const payload: AdapterPayload = { ...row.payload };
      if (id !== undefined && SECRET_IDS.has(this.model)) payload.jti = id;
      if (row.consumed_at) payload.consumed = Math.floor(row.consumed_at.getTime() / 1000);
      return payload;
    }
  };
}
