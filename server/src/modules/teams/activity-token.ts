import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { TeamsConfig } from './teams-config';

/** The issuer of the tokens Bot Framework sends with every activity. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** Bot Framework allows clocks five minutes apart. */
const CLOCK_TOLERANCE_SECONDS = 300;

export type TokenVerdict = 'ok' | 'invalid' | 'stale';

/**
 * Bot Framework's authentication of an inbound activity: `Authorization: Bearer <JWT>`, RS256,
 * signed by a key of its OpenID metadata endorsed for the activity's channel (`msteams`), issued
 * by api.botframework.com for this bot (audience: its app id), current, and naming the
 * activity's own `serviceUrl`, the only place the bot's replies may go.
 */
export async function verifyActivityToken(
  config: TeamsConfig,
  authorization: string | undefined,
  expected: { appId: string; serviceUrl: unknown; channelId: unknown },
  now: Date,
): Promise<TokenVerdict> {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (!token) return 'invalid';
  try {
    const kid = decodeProtectedHeader(token).kid;
    const key = kid ? await config.keys.find(kid) : null;
    if (!key) return 'invalid';
    if (!key.endorsements?.includes(String(expected.channelId))) return 'invalid';
    const { payload } = await jwtVerify(token, config.keys.setOf(key), {
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: expected.appId,
      algorithms: ['RS256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: now,
    });
    return payload.serviceUrl === expected.serviceUrl ? 'ok' : 'invalid';
  } catch (error) {
    if (error instanceof errors.JWTExpired) return 'stale';
    if (error instanceof errors.JOSEError) return 'invalid';
    throw error;
  }
}
