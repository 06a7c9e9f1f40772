import { AppError } from '@beckon/server/errors';
import { identityRouter } from '@beckon/server/modules/identity/router';
import { router } from '@beckon/server/trpc/init';
import { permissionProcedure, publicProcedure } from '@beckon/server/trpc/procedures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Factories, startTestServer, type TestServer } from '../harness';

const thrown: Record<number, AppError> = {
  402: AppError.paymentRequired({ key: 'webhooks', limit: 1, current: 1, upgrade_url: 'http://app/billing' }),
  409: AppError.conflict('invalid_status', 'item is not open', { status: 'answered' }),
  410: AppError.gone('invitation_inactive', 'invitation expired'),
  422: AppError.validationFailed({ approve: 'required' }),
  429: AppError.rateLimited(30),
};

// Procedures that fail on purpose, served through the real resource app and its error mapping.
const probeRouter = router({
  identity: identityRouter,
  probe: router({
    fail: publicProcedure
      .meta({ openapi: { method: 'POST', path: '/probe/fail/{status}' } })
      .input(z.object({ status: z.coerce.number().int() }))
      .output(z.object({}))
      .mutation(({ input }) => {
        throw thrown[input.status] ?? new Error('boom with a secret in it');
      }),
    echo: publicProcedure
      .meta({ openapi: { method: 'POST', path: '/probe/echo' } })
      .input(z.strictObject({ name: z.string().max(5), count: z.number().int() }))
      .output(z.object({ name: z.string(), count: z.number() }))
      .mutation(({ input }) => input),
    guarded: permissionProcedure('org.delete')
      .meta({ openapi: { method: 'POST', path: '/probe/guarded' } })
      .input(z.object({}))
      .output(z.object({ ok: z.boolean() }))
      .mutation(() => ({ ok: true })),
  }),
});

let server: TestServer;
let viewerToken: string;
let ownerToken: string;

beforeAll(async () => {
  server = await startTestServer({ router: probeRouter });
  const factories = new Factories(server.database.db);
  viewerToken = (await factories.account('viewer')).token;
  ownerToken = (await factories.account('owner')).token;
});
afterAll(() => server?.close());

describe('REST error bodies', () => {
  it('400 for malformed JSON', async () => {
    const res = await server.resource.post('/api/probe/echo', '{"name": ', { raw: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { body: 'malformed JSON' },
    });
  });

  it('400 naming each wrong field and each unknown one', async () => {
    const res = await server.resource.post('/api/probe/echo', {
      name: 'far too long',
      count: 'x',
      colour: 'red',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid request', code: 'invalid_request' });
    const fields = (res.body as { fields: Record<string, string> }).fields;
    expect(Object.keys(fields).sort()).toEqual(['colour', 'count', 'name']);
    expect(fields.colour).toBe('unknown field');
  });

  it('passes valid input through', async () => {
    const res = await server.resource.post('/api/probe/echo', { name: 'ok', count: 2 });
    expect(res).toMatchObject({ status: 200, body: { name: 'ok', count: 2 } });
  });

  it('401 with the WWW-Authenticate challenge', async () => {
    const res = await server.resource.get('/api/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', code: 'unauthorized' });
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="beckon", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource"',
    );
  });

  it('403 naming the missing permission', async () => {
    const res = await server.resource.post('/api/probe/guarded', {}, { token: viewerToken });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.delete',
    });
    const allowed = await server.resource.post('/api/probe/guarded', {}, { token: ownerToken });
    expect(allowed).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('404 for unknown paths, inside and outside /api', async () => {
    for (const path of ['/api/nothing-here', '/nothing-here']) {
      const res = await server.resource.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not found', code: 'not_found' });
    }
  });

  it('404 naming the other process for a path sent to the wrong port', async () => {
    const env = server.deps.env;
    const atResource = await server.resource.post('/auth/magic-link', { email: 'me@example.com' });
    expect(atResource.status).toBe(404);
    expect(atResource.body).toEqual({
      error: 'not found',
      code: 'not_found',
      hint: `/auth/magic-link is served by the authorization process: ${new URL('/auth/magic-link', env.ISSUER_URL)}`,
    });
    const atAuth = await server.auth.get('/api/items?limit=1');
    expect(atAuth.status).toBe(404);
    expect(atAuth.body).toMatchObject({
      code: 'not_found',
      hint: `/api/items is served by the resource process: ${new URL('/api/items', env.RESOURCE_URL)}`,
    });
  });

  it.each([402, 409, 410, 422, 429])('%i with its exact body', async (status) => {
    const res = await server.resource.post(`/api/probe/fail/${status}`, {});
    expect(res.status).toBe(status);
    expect(res.body).toEqual(thrown[status]!.body);
  });

  it('429 carries Retry-After', async () => {
    const res = await server.resource.post('/api/probe/fail/429', {});
    expect(res.headers.get('retry-after')).toBe('30');
  });

  it('413 above the 1 MiB body limit', async () => {
    const res = await server.resource.post('/api/probe/echo', {
      name: 'a',
      count: 1,
      pad: 'x'.repeat(1024 * 1024),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'payload too large', code: 'payload_too_large', limit: 1024 * 1024 });
  });

  it('500 without internals', async () => {
    const res = await server.resource.post('/api/probe/fail/599', {});
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal error', code: 'internal_error' });
  });

  it('415 for a body that is not JSON', async () => {
    const res = await server.resource.post('/api/probe/echo', 'name=a', {
      raw: true,
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({
      error: expect.stringContaining('unsupported media type'),
      code: 'unsupported_media_type',
    });
  });
});

describe('tRPC errors', () => {
  it('carry the same status and body', async () => {
    const res = await server.resource.post('/trpc/probe.fail', { status: 409 });
    expect(res.status).toBe(409);
    const error = (res.body as { error: { message: string; data: { httpStatus: number; body: unknown } } })
      .error;
    expect(error.message).toBe('item is not open');
    expect(error.data).toMatchObject({
      httpStatus: 409,
      body: { error: 'item is not open', code: 'invalid_status', status: 'answered' },
    });
  });

  it('answer 401 with the same WWW-Authenticate challenge, and 429 with Retry-After', async () => {
    const res = await server.resource.get('/trpc/identity.whoAmI');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer realm="beckon", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource"',
    );
    const limited = await server.resource.post('/trpc/probe.fail', { status: 429 });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('30');
  });

  it('answer 500 with nothing of the cause: no message, no stack trace (outside production too)', async () => {
    const res = await server.resource.post('/trpc/probe.fail', { status: 599 });
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('secret');
    const error = (res.body as { error: { message: string; data: Record<string, unknown> } }).error;
    expect(error.message).toBe('internal error');
    expect(error.data).not.toHaveProperty('stack');
    expect(error.data.body).toEqual({ error: 'internal error', code: 'internal_error' });
  });

  it('report invalid input with named fields', async () => {
    const res = await server.resource.post('/trpc/probe.echo', { name: 1, count: 1 });
    expect(res.status).toBe(400);
    const error = (res.body as { error: { data: { body: unknown } } }).error;
    expect(error.data.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { name: expect.any(String) },
    });
  });
});
