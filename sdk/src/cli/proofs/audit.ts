import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import {
  type ChainedEntry,
  type ChainPoint,
  type ChainVerdict,
  verifyChain,
} from '@beckon/contracts/proofs/audit-chain';

/** A line of GET /api/audit/export. */
type ExportLine =
  | ({ type: 'entry' } & ChainedEntry)
  | { type: 'anchor' | 'head'; org_id: string; seq: number; hash: string };

export class ExportError extends Error {}

/** The lines of an export, from a file or the server's stream, parsed one at a time. */
async function* exportLines(source: Readable): AsyncGenerator<ExportLine> {
  let n = 0;
  for await (const text of createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY })) {
    n += 1;
    if (!text.trim()) continue;
    try {
      yield JSON.parse(text) as ExportLine;
    } catch {
      throw new ExportError(`line ${n} is not JSON`);
    }
  }
}

/**
 * Verifies an export as it streams: the anchor first, then the entries, then the head. Entries
 * of another organization than the anchor's, or no head line (a cut-off export), fail.
 */
export async function verifyExport(source: Readable): Promise<ChainVerdict & { org_id: string }> {
  const lines = exportLines(source);
  const first = await lines.next();
  if (first.done || first.value.type !== 'anchor')
    throw new ExportError('the export does not start with its anchor');
  const anchor: ChainPoint = { seq: first.value.seq, hash: first.value.hash };
  const orgId = first.value.org_id;
  let head: ChainPoint | undefined;
  async function* entries(): AsyncGenerator<ChainedEntry> {
    for await (const line of lines) {
      if (line.type === 'head') {
        head = { seq: line.seq, hash: line.hash };
        return;
      }
      if (line.type !== 'entry') throw new ExportError(`unexpected ${line.type} line`);
      if (line.org_id !== orgId) throw new ExportError(`entry ${line.id} belongs to another organization`);
      const { type: _, ...entry } = line;
      yield entry;
    }
  }
  const verdict = await verifyChain(entries(), anchor, () => head);
  if (verdict.valid && !head) throw new ExportError('the export ends without its head line (cut off?)');
  return { ...verdict, org_id: orgId };
}

export const fileSource = (file: string) => createReadStream(file);

/** GET /api/audit/export, streamed. */
export async function serverSource(url: string, token: string): Promise<Readable> {
  const res = await fetch(`${url.replace(/\/+$/, '')}/api/audit/export`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok || !res.body) {
    const body = await res.text().catch(() => '');
    throw new ExportError(`GET /api/audit/export answered ${res.status} ${body.slice(0, 200)}`);
  }
  return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
}

/** One line for a person: where the chain holds, or its first broken link. */
export function describeVerdict(verdict: ChainVerdict): string {
  const range = `seq ${verdict.anchor.seq + 1}..${verdict.last.seq}`;
  const b = verdict.broken;
  if (!b) return `audit chain valid: ${verdict.entries} entries (${range}), head ${verdict.last.hash}\n`;
  const what = {
    missing: 'is missing',
    prev_hash: 'does not follow the entry before it',
    hash: 'was changed after it was written',
    head: 'and later entries are missing (the chain ends earlier than its head)',
  }[b.reason];
  return `audit chain BROKEN at seq ${b.seq}${b.id ? ` (entry ${b.id})` : ''}: the entry ${what}; ${verdict.entries} entries before it hold\n`;
}
