import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Where attachment files live: never in a database row (decisions.md). */
export type FileStorage = {
  put(key: string, data: Buffer): Promise<void>;
  /** The stored bytes, or null when nothing is stored under the key. */
  get(key: string): Promise<Buffer | null>;
  /** Removes the file; a key with nothing stored is not an error. */
  delete(key: string): Promise<void>;
};

/** One path segment: starts with a letter or digit (so never `.`, `..` or a hidden name). */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_SEGMENTS = 8;

/**
 * The file of a key under the root, or a thrown error for a key that is empty, absolute, has
 * `.`/`..`/empty segments, backslashes or any other character outside `[A-Za-z0-9._-]`: a key
 * can never name a file outside the root.
 */
export function keyPath(root: string, key: string): string {
  const segments = key.split('/');
  if (segments.length > MAX_SEGMENTS || !segments.every((segment) => SEGMENT.test(segment))) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
  const file = path.resolve(root, ...segments);
  if (!file.startsWith(root + path.sep)) throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  return file;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * Files on the local filesystem under `rootDir`. A put writes a temporary file (in `.tmp`, a
 * name no key can take) and renames it into place, so a reader never sees half a file.
 */
export function localStorage(rootDir: string): FileStorage {
  const root = path.resolve(rootDir);
  const tmpDir = path.join(root, '.tmp');
  return {
    async put(key, data) {
      const file = keyPath(root, key);
      await mkdir(tmpDir, { recursive: true });
      await mkdir(path.dirname(file), { recursive: true });
      const tmp = path.join(tmpDir, `${randomUUID()}.part`);
      try {
        const handle = await open(tmp, 'wx', 0o600);
        try {
          await handle.writeFile(data);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(tmp, file);
      } catch (error) {
        await rm(tmp, { force: true });
        throw error;
      }
    },
    async get(key) {
      const file = keyPath(root, key);
      try {
        return await readFile(file);
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async delete(key) {
      await rm(keyPath(root, key), { force: true });
    },
  };
}
