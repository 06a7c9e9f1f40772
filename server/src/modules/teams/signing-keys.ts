import { createLocalJWKSet, type JSONWebKeySet } from 'jose';

/** Bot Framework's keys change rarely; Microsoft asks bots to read them at most daily. */
const KEYS_TTL_MS = 24 * 60 * 60_000;
/** An unknown key id reads the keys again, but not more often than this. */
const REFETCH_MS = 5 * 60_000;
const FETCH_TIMEOUT_MS = 10_000;

type BotKey = JSONWebKeySet['keys'][number] & { endorsements?: string[] };

async function fetchJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

/**
 * The keys Bot Framework signs inbound activities with: its OpenID metadata names `jwks_uri`,
 * whose keys each carry `endorsements` (the channels, such as `msteams`, the key may sign for).
 * Kept in memory for a day, read again for a key id not seen yet (a key rollover).
 */
export function createSigningKeys(openIdUrl: string) {
  let keys: BotKey[] = [];
  let fetchedAt = 0;
  const refresh = async () => {
    const meta = await fetchJson<{ jwks_uri?: string }>(openIdUrl);
    if (!meta.jwks_uri) throw new Error(`${openIdUrl}: no jwks_uri`);
    keys = (await fetchJson<{ keys?: BotKey[] }>(meta.jwks_uri)).keys ?? [];
    fetchedAt = Date.now();
  };
  return {
    /** The key of `kid`, or null when Bot Framework names none by that id. */
    async find(kid: string): Promise<BotKey | null> {
      const age = Date.now() - fetchedAt;
      const known = () => keys.find((k) => k.kid === kid) ?? null;
      if (age > KEYS_TTL_MS || (!known() && age > REFETCH_MS)) await refresh();
      return known();
    },
    /** A key set of the one key, for jose's verification. */
    setOf: (key: BotKey) => createLocalJWKSet({ keys: [key] }),
  };
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;
