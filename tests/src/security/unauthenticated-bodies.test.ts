import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type OwnPostgres,
  type ResourceProcess,
  spawnResource,
  startOwnPostgres,
} from '../faults/own-processes';

let postgres: OwnPostgres;
let resource: ResourceProcess;

beforeAll(async () => {
  postgres = await startOwnPostgres();
  resource = await spawnResource(postgres.url);
}, 120_000);
afterAll(async () => {
  await resource?.stop();
  await postgres?.close();
});

/** The resident memory of a process, in bytes (Linux). */
async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (!kb) throw new Error('no VmRSS');
  return Number(kb) * 1024;
}

const CHUNK = 'A'.repeat(256 * 1024);
const DECLARED = 15 * 1024 * 1024 - 1;

type Upload = {
  /** The status line's code, once an answer arrives. */
  answer: Promise<number>;
  /** Resolves when the server has closed the socket. */
  closed: Promise<void>;
  /** Writes another chunk of the body, unless the socket is closed. */
  trickle: () => void;
  destroy: () => void;
};

/** An attachment upload without a credential, its body sent a chunk at a time. */
function slowUpload(port: number): Upload {
  const socket = net.connect(port, '127.0.0.1');
  let open = true;
  let received = '';
  const answer = new Promise<number>((resolve, reject) => {
    socket.on('data', (data) => {
      received += data.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
      if (status) resolve(Number(status));
    });
    socket.on('error', () => {});
    socket.on('close', () => reject(new Error(`closed without an answer: ${received}`)));
  });
  answer.catch(() => {});
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      open = false;
      resolve();
    }),
  );
  const write = (text: string) => {
    // Only as fast as the server reads (nothing piles up in this process if it does not).
    if (!open || socket.writableLength > CHUNK.length) return;
    socket.write(text);
  };
  socket.write(
    `POST /api/items/${randomUUID()}/attachments HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n`,
  );
  write('{"filename":"a.bin","content_type":"application/octet-stream","content_base64":"');
  write(CHUNK);
  return { answer, closed, trickle: () => write(CHUNK), destroy: () => socket.destroy() };
}

describe('requests without a credential hold neither memory nor sockets', () => {
  it('answers 100 slow 15 MiB uploads without a token at once, closes them, and stays flat in memory', async () => {
    const pid = resource.child.pid!;
    const port = Number(new URL(resource.url).port);
    const before = await rss(pid);
    const uploads = Array.from({ length: 100 }, () => slowUpload(port));
    try {
      // Each is answered while its body has hardly begun: the credential is checked first. Past
      // HTTP_MAX_BODIES_PER_ADDRESS bodies in flight from one address, a 429 comes instead.
      const statuses = await Promise.all(uploads.map((u) => u.answer));
      expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
      expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
      // The client keeps sending: the server has closed every socket, so little of it gets through.
      for (let round = 0; round < 40; round++) {
        for (const u of uploads) u.trickle();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await Promise.all(uploads.map((u) => u.closed));
      const after = await rss(pid);
      // 100 bodies of 10 MB held would be a gigabyte; refused before reading, they are nothing.
      expect(after - before).toBeLessThan(64 * 1024 * 1024);
    } finally {
      for (const u of uploads) u.destroy();
    }
    // The process still answers.
    expect((await fetch(`${resource.url}/health`)).status).toBe(200);
  });
});
