import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, fieldsFromZod, toAppError, toJsonRpcError } from './errors';

describe('error mapping', () => {
  it('names zod failures by JSON path', () => {
    const result = z
      .object({ title: z.string(), form: z.object({ fields: z.array(z.string()) }) })
      .safeParse({
        title: 3,
        form: { fields: ['a', 2] },
      });
    expect(result.success).toBe(false);
    expect(Object.keys(fieldsFromZod(result.error!.issues))).toEqual(['title', 'form.fields.1']);
  });

  it('maps application errors to JSON-RPC codes with the REST body as data', () => {
    const quota = AppError.paymentRequired({
      key: 'monthly_notifications',
      limit: 10,
      current: 10,
      upgrade_url: 'u',
    });
    expect(toJsonRpcError(quota)).toEqual({ code: -32002, message: 'plan_limit_exceeded', data: quota.body });
    expect(toJsonRpcError(AppError.invalid({ title: 'Required' })).code).toBe(-32602);
    expect(toJsonRpcError(AppError.validationFailed({ a: 'x' })).code).toBe(-32602);
    expect(toJsonRpcError(AppError.notFound()).code).toBe(-32004);
    expect(toJsonRpcError(AppError.permissionDenied('items.write')).data).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'items.write',
    });
    expect(toJsonRpcError(AppError.internal()).code).toBe(-32603);
  });

  it('hides unknown errors behind a 500 without their message', () => {
    const error = toAppError(new Error('connection string with password'));
    expect(error.status).toBe(500);
    expect(error.body).toEqual({ error: 'internal error', code: 'internal_error' });
  });
});

describe('missing fields', () => {
  it('are Required, whatever type they expected; a wrong type keeps its message', () => {
    const result = z
      .object({ name: z.string(), form: z.object({ id: z.string() }), count: z.number() })
      .safeParse({ form: {}, count: 'three' });
    expect(fieldsFromZod(result.error!.issues)).toEqual({
      name: 'Required',
      'form.id': 'Required',
      count: 'Invalid input: expected number, received string',
    });
  });
});

describe('unknown fields', () => {
  it('are named one by one', () => {
    const result = z.strictObject({ title: z.string(), meta: z.strictObject({}) }).safeParse({
      title: 't',
      titel: 'typo',
      meta: { x: 1 },
    });
    expect(fieldsFromZod(result.error!.issues)).toEqual({
      titel: 'unknown field',
      'meta.x': 'unknown field',
    });
  });
});
