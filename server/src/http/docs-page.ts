import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * GET /api/docs: the API reference with "Try it out", rendered by Swagger UI from
 * /api/openapi.json. Every asset is served from the installed `swagger-ui-dist` package (no CDN,
 * nothing third-party: it works offline and leaks nothing), and the CSP lets the page reach only
 * this origin.
 */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Beckon API reference</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png">
</head>
<body><div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body></html>`;

/**
 * Loads the document, points "Try it out" at the origin that served the page (the document's
 * own `servers` entry, RESOURCE_URL, follows as a second choice), and renders it. Requests carry
 * the token given under "Authorize" (the document's `bearer` scheme).
 */
const INIT = `fetch('/api/openapi.json').then((r) => r.json()).then((spec) => {
  const here = { url: new URL('/api', window.location.href).href, description: 'This server' };
  spec.servers = [here].concat((spec.servers || []).filter((s) => s.url !== here.url));
  window.ui = SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI (React) sets style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The files of swagger-ui-dist the page uses: nothing else of the package is served. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Promise<Buffer>>();
const asset = (name: string) => {
  let loaded = cache.get(name);
  if (!loaded) {
    loaded = readFile(path.join(swaggerUiDir, name));
    cache.set(name, loaded);
  }
  return loaded;
};

export function registerDocsPage(app: FastifyInstance): void {
  // With or without the trailing slash people type (the assets' paths are absolute).
  for (const url of ['/api/docs', '/api/docs/']) {
    app.get(url, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(PAGE),
    );
  }
  app.get('/api/docs/init.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(INIT),
  );
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`/api/docs/${name}`, async (_request, reply) =>
      reply
        .type(type)
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .send(await asset(name)),
    );
  }
}
