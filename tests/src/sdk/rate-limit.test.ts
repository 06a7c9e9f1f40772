import { createClient, RateLimitError } from '@beckon/sdk';
import { manualClock } from '@beckon/server/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

const clock = manualClock(new Date('2026-11-23T10:00:00.000Z'));
let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { RATE_LIMIT_API: '2/1m' } });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** `seconds` before the next minute, when this file's `2/1m` windows end. */
const secondsBeforeWindowEnds = (seconds: number) =>
  clock.advance(60_000 - (clock().getTime() % 60_000) + 60_000 - seconds * 1000);

describe('the SDK and rate limits', () => {
  it('waits for a short Retry-After and tries again', async () => {
    secondsBeforeWindowEnds(1);
    const { token } = await f.account();
    const beckon = createClient({ baseUrl: server.resource.baseUrl, token, retryDelayMs: 20 });
    await beckon.list();
    await beckon.list();
    // The third call is refused with Retry-After: 1; the window ends meanwhile, so the retry passes.
    const moving = setTimeout(() => clock.advance(2_000), 300);
    const started = Date.now();
    await expect(beckon.list()).resolves.toMatchObject({ items: [] });
    clearTimeout(moving);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('rejects at once with retryAfterSeconds when the wait is long', async () => {
    secondsBeforeWindowEnds(45);
    const { token } = await f.account();
    const beckon = createClient({ baseUrl: server.resource.baseUrl, token, retryDelayMs: 20 });
    await beckon.list();
    await beckon.list();
    const error = await beckon.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({
      status: 429,
      body: { error: 'rate limited', code: 'rate_limited' },
      retryAfterSeconds: 45,
    });
  });
});
