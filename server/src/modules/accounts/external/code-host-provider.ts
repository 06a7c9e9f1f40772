import { GitHub } from 'arctic';
import { ProviderProfileError, ProviderUnreachableError } from './errors';
import type { ExternalProfile, ExternalProvider } from './provider';

const API = 'https://api.github.com';

type User = { id: number; login: string; name: string | null };
type Email = { email: string; primary: boolean; verified: boolean };

/**
 * idp_a, the code-hosting provider: plain OAuth 2 with a client secret and no ID token, so the
 * account and its primary verified email come from its API.
 */
export function codeHostProvider(
  clientId: string,
  clientSecret: string,
  redirectUri: string,
): ExternalProvider {
  const client = new GitHub(clientId, clientSecret, redirectUri);
  return {
    idp: 'idp_a',
    authorizationUrl: (state) => client.createAuthorizationURL(state, ['read:user', 'user:email']),
    async profile(code): Promise<ExternalProfile> {
      const accessToken = (await client.validateAuthorizationCode(code)).accessToken();
      const [user, emails] = await Promise.all([
        api<User>('/user', accessToken),
        api<Email[]>('/user/emails', accessToken),
      ]);
      const primary = emails.find((e) => e.primary && e.verified);
      return {
        providerUserId: String(user.id),
        email: primary?.email ?? null,
        emailVerified: Boolean(primary),
        name: user.name || user.login,
      };
    },
  };
}

async function api<T>(path: string, accessToken: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${API}${path}`, {
      headers: {
        authorization: `Bearer ${accessToken}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        // The API refuses requests without one.
        'user-agent': 'beckon',
      },
    });
  } catch (cause) {
    throw new ProviderUnreachableError('provider API unreachable', { cause });
  }
  if (response.status >= 500) throw new ProviderUnreachableError(`provider API answered ${response.status}`);
  if (!response.ok) throw new ProviderProfileError(`provider API answered ${response.status}`);
  return (await response.json()) as T;
}
