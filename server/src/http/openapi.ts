import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import type { Env } from '../env';
import { restProcedures } from './rest';

type Schema = Record<string, unknown>;
const str = { type: 'string' };
const fieldsMap = { type: 'object', additionalProperties: str, description: 'field (JSON path) to message' };

/** The real error bodies (see errors.ts), documented in place of trpc-to-openapi's generic shape. */
const ERROR_SCHEMAS: Record<string, Schema> = {
  Error: { type: 'object', required: ['error'], properties: { error: str } },
  InvalidRequest: {
    type: 'object',
    required: ['error', 'fields'],
    properties: { error: str, fields: fieldsMap },
  },
  PlanLimitExceeded: {
    type: 'object',
    required: ['error', 'key', 'limit', 'current', 'upgrade_url'],
    properties: {
      error: { const: 'plan_limit_exceeded' },
      key: str,
      limit: { type: 'integer' },
      current: { type: 'integer' },
      upgrade_url: str,
    },
  },
  PermissionDenied: {
    type: 'object',
    required: ['error', 'required'],
    properties: { error: { const: 'permission denied' }, required: str },
  },
  Conflict: { type: 'object', required: ['error'], properties: { error: str, status: str } },
  PayloadTooLarge: {
    type: 'object',
    required: ['error', 'limit'],
    properties: { error: str, limit: { type: 'integer' } },
  },
  ValidationFailed: {
    type: 'object',
    required: ['error', 'fields'],
    properties: { error: { const: 'validation failed' }, fields: fieldsMap },
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
  '422': ['ValidationFailed', 'Form answer invalid'],
  '429': ['Error', 'Rate limited (Retry-After says when to come back)'],
  '500': ['Error', 'Internal error'],
  '503': ['Error', 'A service it needs is unavailable (Retry-After says when to try again)'],
};

const errorResponse = (status: string) => {
  const [schema, description] = ERROR_RESPONSES[status] ?? ['Error', 'Error'];
  return {
    description,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
  };
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

/** Which process a document describes: the resource API (/api) or the account API (/auth). */
export type ApiSurface = 'resource' | 'auth';

const SURFACES = {
  resource: {
    title: 'Beckon API',
    description: 'Interactive notifications: agents ask, people answer, outcomes flow back.',
    baseUrl: (env: Env) => `${env.RESOURCE_URL}/api`,
    extraPaths: DOWNLOAD_PATHS,
  },
  auth: {
    title: 'Beckon account API',
    description:
      'The authorization process: sign-in (magic link, external providers), sessions, organizations, API keys, invitations.',
    baseUrl: (env: Env) => `${env.ISSUER_URL}/auth`,
    extraPaths: {},
  },
} satisfies Record<ApiSurface, unknown>;

export function openApiDocument(
  router: OpenApiRouter,
  env: Env,
  surface: ApiSurface = 'resource',
): OpenAPIObject {
  const { title, description, baseUrl, extraPaths } = SURFACES[surface];
  const doc = generateOpenApiDocument(router, {
    title,
    description,
    version: '0.1.0',
    baseUrl: baseUrl(env),
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', description: 'Session token, API key or OAuth token' },
    },
  });
  const generated = Object.entries(doc.components?.schemas ?? {}).filter(
    ([name]) => !name.startsWith('error.'),
  );
  doc.components = { ...doc.components, schemas: { ...Object.fromEntries(generated), ...ERROR_SCHEMAS } };
  doc.paths = { ...doc.paths, ...extraPaths };
  // Creations answer 201 (meta.status): document that instead of the generated 200.
  for (const { meta } of restProcedures(router)) {
    const op = doc.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as 'post'];
    if (meta.status && op?.responses?.['200']) {
      op.responses[String(meta.status)] = op.responses['200'];
      delete op.responses['200'];
    }
  }
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Schema>)) {
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
      op.responses = responses;
    }
  }
  return doc;
}
