import type { SessionGrant } from '@beckon/contracts/accounts/account.contract';
import type { Queryable } from '@beckon/db';
import {
  ArcticFetchError,
  OAuth2RequestError,
  UnexpectedErrorResponseBodyError,
  UnexpectedResponseError,
} from 'arctic';
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { startSession } from '../sign-in';
import { findOrCreateUser, personalWorkspace, type SignedInUser } from '../users';
import { ProviderProfileError, ProviderUnreachableError, refused } from './errors';
import { IdTokenError } from './id-token';
import type { ExternalProfile, ExternalProvider, Flow } from './provider';
import type { Idp } from './state';

export type ExternalCallback = {
  provider: ExternalProvider;
  code: string;
  flow: Flow;
  /** The callback's other parameters. */
  params: Record<string, string>;
  orgId?: string;
};

/** Asks the provider who signed in, then signs that person in here. */
export async function completeExternalSignIn(deps: Deps, callback: ExternalCallback): Promise<SessionGrant> {
  const { provider } = callback;
  let profile: ExternalProfile;
  try {
    profile = await provider.profile(callback.code, callback.flow, callback.params);
  } catch (error) {
    const answer = toSignInError(error);
    deps.log.warn({ idp: provider.idp, reason: describe(error) }, 'external sign-in refused');
    throw answer;
  }
  return signInWithProfile(deps, provider.idp, profile, callback.orgId);
}

/**
 * The account's link decides who it is; an account seen for the first time is linked to the user
 * with its email (created if need be), which is why that email must be one the provider verified.
 * One transaction: a refusal leaves nothing behind.
 */
export async function signInWithProfile(
  deps: Deps,
  idp: Idp,
  profile: ExternalProfile,
  orgId?: string,
): Promise<SessionGrant> {
  const now = deps.clock();
  return deps.sql.begin(async (tx) => {
    const user = (await linkedUser(tx, idp, profile)) ?? (await linkNewAccount(tx, idp, profile));
    return startSession(tx, user, {
      orgId: orgId ?? null,
      method: idp,
      now,
      details: { provider_account: profile.providerUserId },
    });
  });
}

async function linkedUser(tx: Queryable, idp: Idp, profile: ExternalProfile): Promise<SignedInUser | null> {
  const [user] = await tx<{ id: string; email: string }[]>`
    select u.id, u.email from identity_links l join users u on u.id = l.user_id
     where l.provider = ${idp} and l.provider_user_id = ${profile.providerUserId}`;
  if (!user) return null;
  const personalOrgId = await personalWorkspace(tx, user.id, user.email);
  return { id: user.id, email: user.email, personalOrgId, created: false };
}

async function linkNewAccount(tx: Queryable, idp: Idp, profile: ExternalProfile): Promise<SignedInUser> {
  if (!profile.email || !profile.emailVerified) throw refused('no verified email');
  const user = await findOrCreateUser(tx, profile.email, profile.name);
  // Two first sign-ins of one account racing: both found the same user by email, one link stays.
  await tx`insert into identity_links (id, user_id, provider, provider_user_id, email)
           values (${uuidv7()}, ${user.id}, ${idp}, ${profile.providerUserId}, ${user.email})
           on conflict (provider, provider_user_id) do nothing`;
  return user;
}

/** One line for the log: the provider's own words included (they never reach the browser). */
function describe(error: unknown): string {
  if (error instanceof OAuth2RequestError)
    return `${error.code}${error.description ? `: ${error.description}` : ''}`;
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

/**
 * What the callback answers for anything that went wrong between us and the provider. The
 * provider's own description goes to the log, never to the browser.
 */
export function toSignInError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof IdTokenError) return refused(error.message);
  if (error instanceof OAuth2RequestError) return refused('provider refused the code');
  if (error instanceof ProviderProfileError) return refused('provider profile unavailable');
  const unreachable = AppError.of('provider_unreachable', 'provider unreachable');
  if (error instanceof UnexpectedResponseError || error instanceof UnexpectedErrorResponseBodyError) {
    return error.status >= 500 ? unreachable : refused('provider token error');
  }
  if (error instanceof ArcticFetchError || error instanceof ProviderUnreachableError) return unreachable;
  throw error;
}
