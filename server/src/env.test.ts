import { describe, expect, it } from 'vitest';
import { ConfigError, loadEnv } from './env';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const env = loadEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      AUTH_PORT: 3001,
      DATA_DIR: './.data',
      ISSUER_URL: 'http://localhost:3001',
      RESOURCE_URL: 'http://localhost:3000',
      APP_URL: 'http://localhost:5173',
      SMTP_PORT: 587,
      ALLOW_PRIVATE_DESTINATIONS: false,
      DEV_LOGIN_ENABLED: false,
    });
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.OAUTH_SIGNING_KEY).toBeUndefined();
  });

  it('parses numbers and booleans, and treats empty values as unset', () => {
    const env = loadEnv({
      PORT: '8080',
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      SMTP_HOST: '',
      DATABASE_URL: '',
    });
    expect(env.PORT).toBe(8080);
    expect(env.ALLOW_PRIVATE_DESTINATIONS).toBe(true);
    expect(env.SMTP_HOST).toBeUndefined();
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it('names every variable at fault', () => {
    const attempt = () =>
      loadEnv({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        IDP_C_TEAM_ID: 'short',
        ALLOW_PRIVATE_DESTINATIONS: 'maybe',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ['PORT', 'DATABASE_URL', 'IDP_C_TEAM_ID', 'ALLOW_PRIVATE_DESTINATIONS']) {
        expect(message).toContain(`${name}:`);
      }
    }
  });

  it('requires a signing key of at least 32 bytes and mail in production, and refuses the development login there', () => {
    const mail = { SMTP_HOST: 'smtp.example.com' };
    expect(() => loadEnv({ NODE_ENV: 'production', ...mail })).toThrow(
      /OAUTH_SIGNING_KEY: is required in production/,
    );
    expect(() => loadEnv({ NODE_ENV: 'production', OAUTH_SIGNING_KEY: 'too-short', ...mail })).toThrow(
      /OAUTH_SIGNING_KEY/,
    );
    const key = 'k'.repeat(32);
    expect(loadEnv({ NODE_ENV: 'production', OAUTH_SIGNING_KEY: key, ...mail }).OAUTH_SIGNING_KEY).toBe(key);
    expect(() => loadEnv({ NODE_ENV: 'production', OAUTH_SIGNING_KEY: key })).toThrow(
      /SMTP_HOST: is required in production/,
    );
    expect(loadEnv({ NODE_ENV: 'development', OAUTH_SIGNING_KEY: key }).SMTP_HOST).toBeUndefined();
    expect(() =>
      loadEnv({ NODE_ENV: 'production', OAUTH_SIGNING_KEY: key, DEV_LOGIN_ENABLED: 'true', ...mail }),
    ).toThrow(/DEV_LOGIN_ENABLED/);
  });

  it('checks the push service account is JSON', () => {
    expect(() => loadEnv({ PUSH_SERVICE_ACCOUNT_JSON: 'not json' })).toThrow(/PUSH_SERVICE_ACCOUNT_JSON/);
    expect(
      loadEnv({ PUSH_SERVICE_ACCOUNT_JSON: '{"project_id":"p"}' }).PUSH_SERVICE_ACCOUNT_JSON,
    ).toBeDefined();
  });
});
