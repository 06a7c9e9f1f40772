import { ERROR_CODES } from '@beckon/contracts/errors';
import type { Meta } from '@beckon/contracts/meta';
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import type { Env } from '../env';
import { type DocumentedError, documentedErrors, isIdempotent } from './openapi-errors';
import { addExample, RECORDED_EXAMPLES } from './openapi-examples';
import { restProcedures } from './rest';

type Schema = Record<string, unknown>;
const str = { type: 'string' };
const fieldsMap = { type: 'object', additionalProperties: str, description: 'field (JSON path) to message' };

/** The stable codes of a schema's bodies (contracts/src/errors.ts, the table of docs/api.md). */
const codeOf = (...statuses: number[]) => ({
  type: 'string',
  enum: Object.entries(ERROR_CODES)
    .filter(([, { status }]) => statuses.length === 0 || statuses.includes(status))
    .map(([code]) => code),
  description: 'Stable machine-readable code (docs/api.md, Errors)',
});

/** The real error bodies (see errors.ts), documented in place of trpc-to-openapi's generic shape. */
const ERROR_SCHEMAS: Record<string, Schema> = {
  Error: { type: 'object', required: ['error', 'code'], properties: { error: str, code: codeOf() } },
  InvalidRequest: {
    type: 'object',
    required: ['error', 'code', 'fields'],
    properties: { error: str, code: { const: 'invalid_request' }, fields: fieldsMap },
  },
  PlanLimitExceeded: {
    type: 'object',
    required: ['error', 'code', 'key', 'limit', 'current', 'upgrade_url'],
    properties: {
      error: { const: 'plan_limit_exceeded' },
      code: { const: 'plan_limit_exceeded' },
      key: str,
      limit: { type: 'integer' },
      current: { type: 'integer' },
      upgrade_url: str,
    },
  },
  PermissionDenied: {
    type: 'object',
    required: ['error', 'code', 'required'],
    properties: {
      error: { const: 'permission denied' },
      code: { const: 'permission_denied' },
      required: str,
    },
  },
  Conflict: {
    type: 'object',
    required: ['error', 'code'],
    properties: { error: str, code: codeOf(409), status: str },
  },
  PayloadTooLarge: {
    type: 'object',
    required: ['error', 'code', 'limit'],
    properties: { error: str, code: { const: 'payload_too_large' }, limit: { type: 'integer' } },
  },
  ValidationFailed: {
    type: 'object',
    required: ['error', 'code', 'fields'],
    properties: {
      error: { const: 'validation failed' },
      code: { const: 'validation_failed' },
      fields: fieldsMap,
    },
  },
};

const ERROR_RESPONSES: Record<string, [string, string]> = {
  '400': ['InvalidRequest', 'Malformed JSON, wrong types or unknown fields'],
  '401': ['Error', 'Missing, unknown, expired or revoked bearer token (WWW-Authenticate names the metadata)'],
  '402': ['PlanLimitExceeded', 'Plan limit reached'],
  '403': ['PermissionDenied', 'The caller lacks the required permission'],
  '404': ['Error', 'Unknown id, or one that belongs to another organization'],
  '409': ['Conflict', 'Not allowed in the current state'],
  '410': ['Error', 'No longer available'],
  '413': ['PayloadTooLarge', 'Body or attachment over the limit'],
  '415': ['Error', 'The body is not JSON (send Content-Type: application/json)'],
  '422': ['ValidationFailed', 'Form answer invalid'],
  '429': ['Error', 'Rate limited (Retry-After says when to come back)'],
  '500': ['Error', 'Internal error'],
  '503': ['Error', 'A service it needs is unavailable (Retry-After says when to try again)'],
};

const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};

const errorResponse = (status: string, documented?: Omit<DocumentedError, 'status'>) => {
  const [schema, description] = ERROR_RESPONSES[status] ?? ['Error', 'Error'];
  return {
    description: documented?.description ?? description,
    ...(status === '429' || status === '503' ? { headers: retryAfter } : {}),
    content: {
      'application/json': { schema: { $ref: `#/components/schemas/${documented?.schema ?? schema}` } },
    },
  };
};

/** The same status documented for several reasons: one response naming them all. */
function mergeByStatus(errors: DocumentedError[]): Map<string, Omit<DocumentedError, 'status'>> {
  const merged = new Map<string, Omit<DocumentedError, 'status'>>();
  for (const { status, ...documented } of errors) {
    const before = merged.get(status);
    const description = [before?.description, documented.description].filter(Boolean).join('; or ');
    merged.set(status, {
      ...(description ? { description } : {}),
      ...((documented.schema ?? before?.schema) ? { schema: documented.schema ?? before?.schema } : {}),
    });
  }
  return merged;
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the creation safe to retry: the same key and body within 24 hours answer the first result again (with Idempotent-Replayed: true); scoped to the caller and the operation',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
const REPLAYED = {
  'Idempotent-Replayed': {
    description: 'true when this is the stored answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

const uuidParam = (name: string) =>
  ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }) as const;

/** The attachment download answers raw bytes from a plain route (downloads.ts): documented by hand. */
const DOWNLOAD_PATHS: NonNullable<OpenAPIObject['paths']> = {
  '/items/{id}/attachments/{aid}/download': {
    get: {
      operationId: 'attachments-download',
      summary: 'Download the file (stored content type, Content-Disposition: attachment)',
      tags: ['attachments'],
      security: [{ bearer: [] }],
      parameters: [uuidParam('id'), uuidParam('aid')],
      responses: {
        '200': {
          description: 'The file',
          content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
        },
        '403': errorResponse('403'),
        '503': errorResponse('503'),
      },
    },
  },
};

/** The audit and organization exports stream JSON Lines from plain routes (audit-export.ts, org-export.ts): documented by hand. */
const AUDIT_EXPORT_PATHS: NonNullable<OpenAPIObject['paths']> = {
  '/audit/export': {
    get: {
      operationId: 'audit-export',
      summary:
        'The audit chain as JSON Lines: an anchor line, one entry line per entry in chain order, the head',
      tags: ['audit'],
      security: [{ bearer: [] }],
      responses: {
        '200': {
          description: 'One JSON object per line (type: anchor, entry or head)',
          content: { 'application/jsonl': { schema: { type: 'string' } } },
        },
        '403': errorResponse('403'),
      },
    },
  },
  '/admin/export': {
    get: {
      operationId: 'admin-export',
      summary:
        'The organization’s data as JSON Lines (org.manage): one line per row, kind by kind, then an end line with the counts',
      tags: ['retention'],
      security: [{ bearer: [] }],
      responses: {
        '200': {
          description:
            'One JSON object per line (type: organization, retention_policy, member, role, team, channel, template, setting, webhook, item, comment, attachment, audit_entry, end)',
          content: { 'application/jsonl': { schema: { type: 'string' } } },
        },
        '403': errorResponse('403'),
      },
    },
  },
};

/** The repository's licence (the published packages carry the same). */
const LICENSE = { name: 'MIT', identifier: 'MIT' };

/** Which process a document describes: the resource API (/api) or the account API (/auth). */
export type ApiSurface = 'resource' | 'auth';

const SURFACES = {
  resource: {
    title: 'Beckon API',
    description: 'Interactive notifications: agents ask, people answer, outcomes flow back.',
    baseUrl: (env: Env) => `${env.RESOURCE_URL}/api`,
    extraPaths: { ...DOWNLOAD_PATHS, ...AUDIT_EXPORT_PATHS },
    errors: { prefix: '/api', rateLimitsEveryRoute: true },
  },
  auth: {
    title: 'Beckon account API',
    description:
      'The authorization process: sign-in (magic link, external providers), sessions, organizations, API keys, invitations.',
    baseUrl: (env: Env) => `${env.ISSUER_URL}/auth`,
    extraPaths: {},
    errors: { prefix: '/auth', rateLimitsEveryRoute: false },
  },
} satisfies Record<ApiSurface, unknown>;

export function openApiDocument(
  router: OpenApiRouter,
  env: Env,
  surface: ApiSurface = 'resource',
): OpenAPIObject {
  const { title, description, baseUrl, extraPaths, errors } = SURFACES[surface];
  const doc = generateOpenApiDocument(router, {
    title,
    description,
    version: '0.1.0',
    baseUrl: baseUrl(env),
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'Session token, API key or OAuth token' },
    },
  });
  doc.info.license = LICENSE;
  const generated = Object.entries(doc.components?.schemas ?? {}).filter(
    ([name]) => !name.startsWith('error.'),
  );
  doc.components = { ...doc.components, schemas: { ...Object.fromEntries(generated), ...ERROR_SCHEMAS } };
  doc.paths = { ...doc.paths, ...extraPaths };
  const metas = new Map<string, Meta>();
  // Creations answer 201 (meta.status): document that instead of the generated 200.
  for (const { meta } of restProcedures(router)) {
    metas.set(`${meta.openapi.method} ${meta.openapi.path}`, meta);
    const op = doc.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as 'post'];
    if (meta.status && op?.responses?.['200']) {
      op.responses[String(meta.status)] = op.responses['200'];
      delete op.responses['200'];
    }
  }
  const examples = RECORDED_EXAMPLES[surface] ?? {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Schema>)) {
      const route = `${method.toUpperCase()} ${path}`;
      const meta = metas.get(route);
      const responses = (op.responses ?? {}) as Record<string, unknown>;
      const statuses = new Set(Object.keys(responses).filter((s) => Number(s) >= 400 || s === 'default'));
      statuses.delete('default');
      statuses.add('400');
      statuses.add('500');
      if (op.security) statuses.add('401');
      if (path.includes('{')) statuses.add('404');
      if (op.requestBody) statuses.add('413');
      delete responses.default;
      for (const status of statuses) responses[status] = errorResponse(status);
      // What else it can answer (openapi-errors.ts), added beside what was documented already.
      for (const [status, documented] of mergeByStatus(documentedErrors(route, op, meta, errors))) {
        responses[status] ??= errorResponse(status, documented);
      }
      op.responses = responses;
      // Public operations say so: an empty requirement, not a missing one.
      op.security ??= [];
      if (isIdempotent(meta)) {
        op.parameters = [...((op.parameters as unknown[]) ?? []), IDEMPOTENCY_KEY];
        const success = responses[String(meta?.status)] as Schema | undefined;
        if (success) success.headers = { ...(success.headers as Schema), ...REPLAYED };
      }
      addExample(op, examples[route]);
    }
  }
  return doc;
}
