import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEnv } from './env';
import { resolveSigningKey } from './signing-key';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('OAuth signing key', () => {
  it('is generated once in DATA_DIR (readable by the owner only) and reused', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'beckon-key-'));
    dirs.push(dir);
    const env = loadEnv({ DATA_DIR: dir });
    const [first, concurrent] = await Promise.all([resolveSigningKey(env), resolveSigningKey(env)]);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(concurrent).toBe(first);
    expect(await resolveSigningKey(env)).toBe(first);
    const file = path.join(dir, 'oauth-signing-key');
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('is the configured value when set', async () => {
    const key = 'x'.repeat(40);
    expect(await resolveSigningKey(loadEnv({ OAUTH_SIGNING_KEY: key, DATA_DIR: '/nonexistent' }))).toBe(key);
  });
});
