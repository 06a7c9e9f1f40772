import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { errorSerializer } from './log';

/** The lines a logger with the process's serializers writes. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const log = pino({ serializers: { err: errorSerializer, error: errorSerializer } }, sink);
  return { log, lines };
}

describe('log lines of errors', () => {
  it('leave out the database client a connection error carries, and keep the rest', () => {
    const { log, lines } = capture();
    const cut = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      client: { connectionParameters: { host: '127.0.0.1' }, _queryQueue: [] },
    });
    log.error({ error: cut }, 'PostgreSQL idle client generated error');
    log.warn({ err: cut }, 'while stopping');
    for (const field of ['error', 'err'] as const) {
      const logged = lines.shift()?.[field] as Record<string, unknown>;
      expect(logged).toMatchObject({
        type: 'Error',
        message: 'terminating connection due to administrator command',
        code: '57P01',
      });
      expect(logged.stack).toContain('log.test.ts');
      expect(logged).not.toHaveProperty('client');
    }
  });

  it("leave out the stack of a failed system call, which is Node's own, and keep its code", () => {
    const { log, lines } = capture();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3000'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
      port: 3000,
    });
    log.warn({ err: refused }, 'response errored');
    expect(lines[0]?.err).toEqual({
      type: 'Error',
      message: 'connect ECONNREFUSED 127.0.0.1:3000',
      code: 'ECONNREFUSED',
      syscall: 'connect',
      port: 3000,
    });
  });

  it('leave other values as they are', () => {
    const { log, lines } = capture();
    log.info({ error: 'timeout', err: { reason: 'plain object' } }, 'not errors');
    expect(lines[0]).toMatchObject({ error: 'timeout', err: { reason: 'plain object' } });
  });
});
