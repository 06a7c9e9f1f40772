import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Env } from './env';

/**
 * OAUTH_SIGNING_KEY, or outside production a key generated once and kept in DATA_DIR, so
 * browser sessions and signed state survive restarts without any setup.
 */
export async function resolveSigningKey(env: Env): Promise<string> {
  if (env.OAUTH_SIGNING_KEY) return env.OAUTH_SIGNING_KEY;
  const file = path.resolve(env.DATA_DIR, 'oauth-signing-key');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true });
  const key = randomBytes(32).toString('hex');
  // Written aside, then linked into place: a reader never sees a half-written key.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, `${key}\n`, { mode: 0o600 });
  try {
    await link(draft, file);
    return key;
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return (await readFile(file, 'utf8')).trim();
    throw error;
  } finally {
    await unlink(draft);
  }
}
