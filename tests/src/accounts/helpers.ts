import type { HttpClient } from '../harness';

export type Grant = { token: string; user_id: string; org_id: string; expires_at: string };

/** Signs in through the magic link in development mode (the token comes back in the answer). */
export async function signInByMagicLink(auth: HttpClient, email: string, orgId?: string): Promise<Grant> {
  const requested = await auth.post<{ token: string }>('/auth/magic-link', {
    email,
    ...(orgId ? { org_id: orgId } : {}),
  });
  if (requested.status !== 200) throw new Error(`magic link: ${requested.status} ${requested.text}`);
  const verified = await auth.get<Grant>(`/auth/verify?token=${requested.body.token}`);
  if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.text}`);
  return verified.body;
}

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
