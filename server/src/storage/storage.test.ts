import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileStorage, keyPath, localStorage } from './storage';

let dir: string;
let root: string;
let storage: FileStorage;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'beckon-storage-'));
  root = path.join(dir, 'attachments');
  storage = localStorage(root);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const put = (key: string, bytes: Buffer) => storage.put(key, Readable.from([bytes]), bytes.length);
/** The stored bytes (null when missing), checking the size the store announced. */
const read = async (key: string) => {
  const file = await storage.get(key);
  if (!file) return null;
  const bytes = await buffer(file.body);
  expect(file.size).toBe(bytes.length);
  return bytes;
};

const BAD_KEYS = [
  '',
  '..',
  '.',
  '../x',
  'a/../../x',
  'a/..',
  'a/./b',
  '/etc/passwd',
  'a//b',
  'a/',
  'a\\b',
  '..\\x',
  'C:\\x',
  'C:/x',
  '.hidden',
  'a/.tmp',
  'a\0b',
  'a b',
  'été',
  `${'a'.repeat(129)}`,
  'a/b/c/d/e/f/g/h/i',
];

describe('storage keys', () => {
  it.each(BAD_KEYS)('rejects %j', (key) => {
    expect(() => keyPath(root, key)).toThrow(/invalid storage key/);
  });

  it('keeps every valid key under the root', () => {
    const keys = ['a', 'org-1/0190a0b1-c2d3-7e4f-8a5b-6c7d8e9f0a1b', 'A.b_c-d', 'x/y/z', 'a..b'];
    for (const key of keys) {
      const file = keyPath(root, key);
      expect(file.startsWith(root + path.sep)).toBe(true);
      expect(path.relative(root, file).split(path.sep).join('/')).toBe(key);
    }
  });

  it.each(BAD_KEYS)('put, get and delete refuse %j without touching the disk', async (key) => {
    await expect(put(key, Buffer.from('x'))).rejects.toThrow(/invalid storage key/);
    await expect(storage.get(key)).rejects.toThrow(/invalid storage key/);
    await expect(storage.delete(key)).rejects.toThrow(/invalid storage key/);
    expect(await readdir(dir)).not.toContain('x');
  });
});

describe('local storage', () => {
  it('stores, reads back, overwrites and deletes bytes', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 0, 0, 128]);
    await put('org/file-1', bytes);
    expect(await readFile(path.join(root, 'org', 'file-1'))).toEqual(bytes);
    expect(await read('org/file-1')).toEqual(bytes);

    await put('org/file-1', Buffer.from('second'));
    expect((await read('org/file-1'))?.toString()).toBe('second');

    await storage.delete('org/file-1');
    expect(await read('org/file-1')).toBeNull();
    await expect(stat(path.join(root, 'org', 'file-1'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers null for a missing key and deletes a missing key without error', async () => {
    expect(await read('org/missing')).toBeNull();
    await expect(storage.delete('org/missing')).resolves.toBeUndefined();
  });

  it('stores an empty file', async () => {
    await put('org/empty', Buffer.alloc(0));
    expect(await read('org/empty')).toEqual(Buffer.alloc(0));
  });

  it('leaves no temporary file behind', async () => {
    await Promise.all(Array.from({ length: 10 }, (_, i) => put(`org/many-${i}`, Buffer.from(String(i)))));
    expect(await readdir(path.join(root, '.tmp'))).toEqual([]);
    for (let i = 0; i < 10; i++) expect((await read(`org/many-${i}`))?.toString()).toBe(String(i));
  });

  it('streams a file written in many chunks', async () => {
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(16 * 1024, i));
    const total = Buffer.concat(chunks);
    await storage.put('org/chunked', Readable.from(chunks), total.length);
    expect((await read('org/chunked'))?.equals(total)).toBe(true);
  });

  it('stores nothing, keeping what was there, when the stream fails or brings another size', async () => {
    await put('org/kept', Buffer.from('before'));
    async function* failing() {
      yield Buffer.from('half of it');
      throw new Error('client went away');
    }
    await expect(storage.put('org/kept', Readable.from(failing()), 100)).rejects.toThrow('client went away');
    await expect(storage.put('org/kept', Readable.from([Buffer.from('abc')]), 4)).rejects.toThrow(
      'stored 3 bytes of 4',
    );
    await expect(storage.put('org/never', Readable.from(failing()), 100)).rejects.toThrow();
    expect((await read('org/kept'))?.toString()).toBe('before');
    expect(await read('org/never')).toBeNull();
    expect(await readdir(path.join(root, '.tmp'))).toEqual([]);
  });
});
