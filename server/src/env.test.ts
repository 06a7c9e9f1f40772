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

  it("points the processes' own addresses at their ports unless they are given", () => {
    const env = loadEnv({ PORT: '27010', AUTH_PORT: '27011' });
    expect(env.RESOURCE_URL).toBe('http://localhost:27010');
    expect(env.ISSUER_URL).toBe('http://localhost:27011');
    const given = loadEnv({ PORT: '27010', RESOURCE_URL: 'https://api.example.com', ISSUER_URL: '' });
    expect(given.RESOURCE_URL).toBe('https://api.example.com');
    expect(given.ISSUER_URL).toBe('http://localhost:3001');
  });

  it('refuses an address without its http:// or https://', () => {
    // `localhost:27012` parses as a URL of scheme `localhost:`, which no browser opens.
    expect(() => loadEnv({ APP_URL: 'localhost:27012' })).toThrow(
      /APP_URL: must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => loadEnv({ RESOURCE_URL: 'ftp://example.com' })).toThrow(/RESOURCE_URL:/);
  });

  it('lets a worker run up to a thousand jobs at once', () => {
    expect(loadEnv({}).WORKER_CONCURRENCY).toBe(10);
    expect(loadEnv({ WORKER_CONCURRENCY: '1000' }).WORKER_CONCURRENCY).toBe(1000);
    expect(() => loadEnv({ WORKER_CONCURRENCY: '1001' })).toThrow(/WORKER_CONCURRENCY/);
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

  it('refuses a HOST other than loopback without mail, where sign-in tokens would be answered to anyone', () => {
    expect(() => loadEnv({ HOST: '0.0.0.0' })).toThrow(/SMTP_HOST: is required when HOST \(0\.0\.0\.0\)/);
    expect(() => loadEnv({ HOST: '192.0.2.10', NODE_ENV: 'test' })).toThrow(ConfigError);
    expect(loadEnv({ HOST: '0.0.0.0', SMTP_HOST: 'smtp.example.com' }).HOST).toBe('0.0.0.0');
    for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1', '[::1]']) {
      expect(loadEnv({ HOST: host }).HOST, host).toBe(host);
    }
  });

  it('reads rate limits as <requests>/<window>', () => {
    const env = loadEnv({
      RATE_LIMIT_API: '100/10s',
      RATE_LIMIT_SIGN_IN: ' 7 / 2h ',
      RATE_LIMIT_TOKEN: '9/m',
    });
    expect(env.RATE_LIMIT_API).toEqual({ limit: 100, windowSeconds: 10 });
    expect(env.RATE_LIMIT_SIGN_IN).toEqual({ limit: 7, windowSeconds: 7200 });
    expect(env.RATE_LIMIT_TOKEN).toEqual({ limit: 9, windowSeconds: 60 });
    expect(loadEnv({}).RATE_LIMIT_API).toEqual({ limit: 3000, windowSeconds: 60 });
    expect(loadEnv({}).RATE_LIMIT_SIGN_IN_EMAIL).toEqual({ limit: 5, windowSeconds: 900 });
    for (const bad of ['100', '100/10d', 'many/1m', '0/1m', '5/0s']) {
      expect(() => loadEnv({ RATE_LIMIT_API: bad }), bad).toThrow(/RATE_LIMIT_API:/);
    }
  });

  it('trusts X-Forwarded-For from loopback unless TRUST_PROXY says otherwise', () => {
    expect(loadEnv({}).TRUST_PROXY).toEqual(['loopback']);
    expect(loadEnv({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadEnv({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadEnv({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8']);
  });

  it('keeps attachments on the local disk unless STORAGE=s3, which needs a bucket and a region', () => {
    expect(loadEnv({})).toMatchObject({
      STORAGE: 'local',
      S3_PREFIX: 'attachments/',
      S3_FORCE_PATH_STYLE: false,
    });
    const s3 = { STORAGE: 's3', S3_BUCKET: 'beckon-files', S3_REGION: 'eu-west-1' };
    const env = loadEnv(s3);
    expect(env).toMatchObject(s3);
    expect([env.S3_ENDPOINT, env.S3_ACCESS_KEY_ID, env.S3_SECRET_ACCESS_KEY]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(
      loadEnv({ ...s3, S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true', S3_PREFIX: '' }),
    ).toMatchObject({ S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: true, S3_PREFIX: '' });

    expect(() => loadEnv({ STORAGE: 's3' })).toThrow(
      /S3_BUCKET: is required when STORAGE=s3\n {2}S3_REGION: is required when STORAGE=s3/,
    );
    expect(() => loadEnv({ STORAGE: 'disk' })).toThrow(/STORAGE:/);
    expect(() => loadEnv({ S3_BUCKET: 'beckon-files' })).toThrow(/S3_BUCKET: is set but STORAGE is not s3/);
    expect(() => loadEnv({ ...s3, S3_ACCESS_KEY_ID: 'AKIA' })).toThrow(
      /S3_SECRET_ACCESS_KEY: goes with the other of S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY/,
    );
    expect(() => loadEnv({ ...s3, S3_SECRET_ACCESS_KEY: 'secret' })).toThrow(/S3_ACCESS_KEY_ID: goes with/);
    expect(() => loadEnv({ ...s3, S3_ENDPOINT: 'ftp://files' })).toThrow(/S3_ENDPOINT:/);
    expect(() => loadEnv({ ...s3, S3_BUCKET: 'a/b' })).toThrow(/S3_BUCKET: must be a bucket name/);
    expect(() => loadEnv({ ...s3, S3_PREFIX: 'files' })).toThrow(/S3_PREFIX: must be empty or end with \//);
  });
});
