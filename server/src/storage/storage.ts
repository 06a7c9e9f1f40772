import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A stored file, read as a stream: its bytes and how many there are. */
export type StoredFile = { body: Readable; size: number };

/**
 * Where attachment files live: never in a database row (decisions.md). The local directory
 * (below) is the default; s3-storage.ts keeps them in an S3-compatible bucket (STORAGE=s3).
 */
export type FileStorage = {
  /** Stores the `size` bytes read from `body` under the key, whole or not at all. */
  put(key: string, body: Readable, size: number): Promise<void>;
  /** The stored file, or null when nothing is stored under the key. */
  get(key: string): Promise<StoredFile | null>;
  /** Removes the file; a key with nothing stored is not an error. */
  delete(key: string): Promise<void>;
};

/** One path segment: starts with a letter or digit (so never `.`, `..` or a hidden name). */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_SEGMENTS = 8;

/**
 * The key itself, or a thrown error for a key that is empty, absolute, has `.`/`..`/empty
 * segments, backslashes or any other character outside `[A-Za-z0-9._-]`.
 */
export function checkKey(key: string): string {
  const segments = key.split('/');
  if (segments.length > MAX_SEGMENTS || !segments.every((segment) => SEGMENT.test(segment))) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

/** The file of a key under the root (checkKey's rules): a key can never name a file outside it. */
export function keyPath(root: string, key: string): string {
  const file = path.resolve(root, ...checkKey(key).split('/'));
  if (!file.startsWith(root + path.sep)) throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  return file;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/**
 * Files on the local filesystem under `rootDir`. A put streams into a temporary file (in `.tmp`,
 * a name no key can take) and renames it into place, so a reader never sees half a file.
 */
export function localStorage(rootDir: string): FileStorage {
  const root = path.resolve(rootDir);
  const tmpDir = path.join(root, '.tmp');
  return {
    async put(key, body, size) {
      const file = keyPath(root, key);
      await mkdir(tmpDir, { recursive: true });
      await mkdir(path.dirname(file), { recursive: true });
      const tmp = path.join(tmpDir, `${randomUUID()}.part`);
      try {
        // flush: the bytes are on the disk (fsync) before the file closes and is renamed.
        await pipeline(body, createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true }));
        const { size: written } = await stat(tmp);
        if (written !== size) throw new Error(`stored ${written} bytes of ${size}`);
        await rename(tmp, file);
      } catch (error) {
        body.destroy();
        await rm(tmp, { force: true });
        throw error;
      }
    },
    async get(key) {
      const file = keyPath(root, key);
      const handle = await open(file, 'r').catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
      if (!handle) return null;
      try {
        const { size } = await handle.stat();
        return { body: handle.createReadStream(), size };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async delete(key) {
      await rm(keyPath(root, key), { force: true });
    },
  };
}
