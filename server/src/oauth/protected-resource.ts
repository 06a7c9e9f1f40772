import type { Env } from '../env';
import { OAUTH_SCOPES } from './scopes';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** RFC 9728 metadata: where agents learn which authorization server issues tokens for us. */
export function protectedResourceMetadata(env: Env) {
  return {
    resource: env.RESOURCE_URL,
    authorization_servers: [env.ISSUER_URL],
    bearer_methods_supported: ['header'],
    scopes_supported: [...OAUTH_SCOPES],
    resource_name: 'Beckon',
    resource_documentation: `${env.RESOURCE_URL.replace(/\/+$/, '')}/api/docs`,
  };
}
