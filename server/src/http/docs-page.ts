import type { FastifyInstance } from 'fastify';

/**
 * GET /api/docs: a readable reference of /api/openapi.json, rendered in the page by a few lines
 * of script (self-contained: no third-party assets, so it works offline and leaks nothing).
 */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Beckon API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fafafa}
main{max-width:960px;margin:auto;padding:1.5rem}
h1{margin:.2rem 0}h2{margin-top:2rem;border-bottom:1px solid #ddd;text-transform:capitalize}
details{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.5rem 0;padding:.4rem .8rem}
summary{cursor:pointer;font-family:ui-monospace,monospace}
.m{display:inline-block;min-width:4.5em;font-weight:700}.GET{color:#1a7f37}.POST{color:#0550ae}
.PATCH,.PUT{color:#9a6700}.DELETE{color:#cf222e}
pre{background:#f3f4f6;padding:.6rem;overflow:auto;border-radius:4px;font-size:13px}
</style></head>
<body><main><h1>Beckon API</h1>
<p>Generated from <a href="/api/openapi.json">/api/openapi.json</a>. Send <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<div id="ops">Loading…</div></main>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const json = (v) => '<pre>' + esc(JSON.stringify(v, null, 2)) + '</pre>';
fetch('/api/openapi.json').then((r) => r.json()).then((doc) => {
  const schemas = (doc.components && doc.components.schemas) || {};
  const resolve = (s) => (s && s.$ref ? schemas[s.$ref.split('/').pop()] : s);
  const byTag = {};
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || 'other';
      (byTag[tag] = byTag[tag] || []).push({ path, method: method.toUpperCase(), op });
    }
  }
  let html = '';
  for (const [tag, ops] of Object.entries(byTag)) {
    html += '<h2>' + esc(tag) + '</h2>';
    for (const { path, method, op } of ops) {
      html += '<details><summary><span class="m ' + method + '">' + method + '</span>/api' + esc(path) +
        ' — ' + esc(op.summary || '') + '</summary>';
      if (op.description) html += '<p>' + esc(op.description) + '</p>';
      if (op.parameters && op.parameters.length) {
        html += '<h4>Parameters</h4>' + json(op.parameters.map((p) => ({ name: p.name, in: p.in, required: !!p.required, schema: p.schema })));
      }
      const body = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
      if (body) html += '<h4>Body</h4>' + json(resolve(body.schema));
      for (const [status, res] of Object.entries(op.responses || {})) {
        const content = res.content && (res.content['application/json'] || res.content['application/octet-stream']);
        html += '<h4>' + esc(status) + ' ' + esc(res.description || '') + '</h4>' + (content ? json(resolve(content.schema)) : '');
      }
      html += '</details>';
    }
  }
  document.getElementById('ops').innerHTML = html;
});
</script></body></html>`;

export function registerDocsPage(app: FastifyInstance): void {
  app.get('/api/docs', async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
      )
      .send(PAGE),
  );
}
