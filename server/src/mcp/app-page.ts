/**
 * The HTML of the MCP App (`ui://beckon/answer`): one self-contained page, no external script or
 * style, so a host's default Content Security Policy is enough. It speaks the app bridge directly
 * (JSON-RPC over postMessage with the host, as the Apps specification allows without its SDK):
 * `ui/initialize`, then it renders the item of each `ui/notifications/tool-result` and answers it
 * through `tools/call` of the answer tool. Everything the page shows is set as text, never as HTML.
 */
const STYLE = `
:root{color-scheme:light dark;font-family:var(--font-sans,system-ui,sans-serif);color:var(--color-text-primary,CanvasText)}
body{margin:0;padding:12px;background:var(--color-background-primary,Canvas)}
h1{font-size:1.05rem;margin:0 0 4px}p{margin:0 0 8px;white-space:pre-wrap}
.status{color:var(--color-text-secondary,GrayText);font-size:.85rem;margin-bottom:8px}
label{display:block;margin:8px 0 2px;font-weight:600}.choice{font-weight:400;display:inline-block;margin-right:12px}
input[type=text],input[type=number],input[type=date],textarea,select{width:100%;box-sizing:border-box;padding:6px;font:inherit}
button{margin-top:12px;padding:6px 14px;font:inherit;cursor:pointer}.error{color:var(--color-text-danger,#b00020)}
`;

const SCRIPT = `
const config = JSON.parse(document.getElementById('beckon-config').textContent);
const root = document.getElementById('app');
let nextId = 1;
const pending = new Map();
const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
const request = (method, params) => new Promise((resolve, reject) => {
  const id = nextId++;
  pending.set(id, { resolve, reject });
  send({ id, method, params });
});
const el = (tag, props = {}, children = []) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) node.append(child);
  return node;
};
let item = null;

function itemOf(result) {
  if (result.structuredContent && result.structuredContent.id) return result.structuredContent;
  const text = (result.content || []).find((block) => block.type === 'text');
  try { return JSON.parse(text ? text.text : ''); } catch { return null; }
}
const pageOf = (id) => config.appUrl + '/items/' + id;
function openPage(event) {
  event.preventDefault();
  request('ui/open-link', { url: event.target.href }).catch(() => window.open(event.target.href, '_blank'));
}
const pageLink = (text) => el('a', { href: pageOf(item.id), textContent: text, target: '_blank', onclick: openPage });
const RENDERABLE = ['yesno', 'checkbox', 'text', 'textarea', 'number', 'date', 'select', 'radio', 'multiselect'];

function input(field) {
  const name = field.id;
  const choices = (options, type) => options.map((o) => el('label', { className: 'choice' }, [
    el('input', { type, name, value: o.value, checked: type === 'radio' ? field.default === o.value : (field.default || []).includes(o.value) }), ' ' + o.label]));
  switch (field.type) {
    case 'yesno': return el('div', {}, choices([{ value: 'true', label: field.yes_label || 'Yes' }, { value: 'false', label: field.no_label || 'No' }], 'radio'));
    case 'checkbox': return el('input', { type: 'checkbox', name, checked: field.default === true });
    case 'textarea': return el('textarea', { name, rows: 3, value: field.default || '', placeholder: field.placeholder || '' });
    case 'text': case 'number': case 'date':
      return el('input', { type: field.type, name, step: 'any', value: field.default ?? '', placeholder: field.placeholder || '' });
    case 'select': return el('select', { name }, [el('option', { value: '', textContent: '' }),
      ...field.options.map((o) => el('option', { value: o.value, textContent: o.label, selected: field.default === o.value }))]);
    case 'radio': return el('div', {}, choices(field.options, 'radio'));
    case 'multiselect': return el('div', {}, choices(field.options, 'checkbox'));
  }
}

function valuesOf(form, fields) {
  const values = {};
  for (const field of fields) {
    const named = [...form.elements].filter((node) => node.name === field.id);
    if (field.type === 'checkbox') { values[field.id] = named[0].checked; continue; }
    if (field.type === 'multiselect') { values[field.id] = named.filter((n) => n.checked).map((n) => n.value); continue; }
    const chosen = named.find((n) => n.type !== 'radio' || n.checked);
    const raw = chosen ? chosen.value : '';
    if (raw === '') continue;
    values[field.id] = field.type === 'yesno' ? raw === 'true' : field.type === 'number' ? Number(raw) : raw;
  }
  return values;
}

function render(note, isError) {
  root.replaceChildren();
  if (!item) { root.append(el('p', { className: 'error', textContent: note || 'No item to show.' })); return; }
  root.append(el('h1', { textContent: item.title }));
  if (item.message) root.append(el('p', { textContent: item.message }));
  root.append(el('div', { className: 'status', textContent: 'Status: ' + item.status }));
  if (note) root.append(el('p', { className: isError ? 'error' : '', textContent: note }));
  const fields = (item.form && item.form.fields) || [];
  if (item.status !== 'open') {
    if (item.response) root.append(el('p', { textContent: 'Answer: ' + JSON.stringify(item.response.values || item.response) }));
    return;
  }
  // An answer that needs a fresh verification (require_reauth) is given on Beckon's page.
  if (item.require_reauth || fields.length === 0 || !fields.every((field) => RENDERABLE.includes(field.type))) {
    root.append(pageLink('Open the question in Beckon'));
    return;
  }
  const form = el('form', {}, fields.map((field) => el('div', {}, [
    el('label', { textContent: field.label + (field.required ? ' *' : '') }), input(field),
    ...(field.help ? [el('div', { className: 'status', textContent: field.help })] : [])])));
  // A button, not a submission: a host's sandbox may not allow forms to submit.
  // A button, not a submission: a host's sandbox may not allow forms to submit.
  const submit = el('button', { type: 'button', textContent: 'Send answer' });
  const problem = el('p', { className: 'error' });
  form.append(problem, submit);
  form.onsubmit = (event) => event.preventDefault();
  submit.onclick = async () => {
    submit.disabled = true;
    problem.textContent = '';
    try {
      const result = await request('tools/call', { name: config.answerTool, arguments: { id: item.id, values: valuesOf(form, fields) } });
      const text = ((result.content || []).find((block) => block.type === 'text') || {}).text;
      // Refused: the values stay as entered, with the reasons.
      if (result.isError) problem.textContent = text || 'The answer was refused.';
      else {
        item = itemOf(result) || item;
        render('Answer recorded.');
      }
    } catch (error) {
      problem.textContent = String(error && error.message ? error.message : error);
    }
    submit.disabled = false;
  };
  root.append(form, el('div', { className: 'status' }, [pageLink('Open in Beckon')]));
}

window.addEventListener('message', (event) => {
  if (event.source !== window.parent) return;
  const message = event.data;
  if (!message || message.jsonrpc !== '2.0') return;
  if (message.method === undefined) {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
    return;
  }
  if (message.method === 'ui/notifications/tool-result') {
    item = message.params.isError ? null : itemOf(message.params);
    const text = ((message.params.content || []).find((block) => block.type === 'text') || {}).text;
    render(message.params.isError ? text : '', message.params.isError);
  } else if (message.method === 'ui/notifications/host-context-changed') theme(message.params);
  else if (message.id !== undefined) {
    // ping and ui/resource-teardown: nothing to clean up.
    if (message.method === 'ping' || message.method === 'ui/resource-teardown') send({ id: message.id, result: {} });
    else send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});

function theme(context) {
  const variables = (context && context.styles && context.styles.variables) || {};
  for (const [name, value] of Object.entries(variables)) if (value) document.documentElement.style.setProperty(name, value);
  if (context && context.theme) document.documentElement.style.colorScheme = context.theme;
}

request('ui/initialize', {
  appInfo: { name: 'beckon-answer', version: '1.0.0' },
  appCapabilities: { availableDisplayModes: ['inline'] },
  protocolVersion: '2026-01-26',
}).then((result) => {
  theme(result.hostContext);
  send({ method: 'ui/notifications/initialized', params: {} });
  let last = '';
  new ResizeObserver(() => {
    const size = { width: Math.ceil(document.documentElement.scrollWidth), height: Math.ceil(document.documentElement.scrollHeight) };
    if (JSON.stringify(size) === last) return;
    last = JSON.stringify(size);
    send({ method: 'ui/notifications/size-changed', params: size });
  }).observe(document.documentElement);
});
`;

/** What the page needs from the server: the answer tool as this client spells it, the item links. */
export type AppConfig = { answerTool: string; appUrl: string };

/** `<` escaped so no value can close the script element it sits in. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export const appPage = (config: AppConfig) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Beckon</title><style>${STYLE}</style></head><body><main id="app"><p class="status">Waiting for the question…</p></main><script type="application/json" id="beckon-config">${scriptJson(config)}</script><script>${SCRIPT}</script></body></html>`;
