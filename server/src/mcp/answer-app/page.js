// The script of the MCP App page (`ui://beckon/answer`), bundled into the page with the
// `@modelcontextprotocol/ext-apps` `App` class (server/src/mcp/app-page.ts). It renders the item of
// the tool result the host passes on and answers it through the answer tool. Everything it shows
// is set as text, never as HTML.
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from '@modelcontextprotocol/ext-apps';

const config = JSON.parse(document.getElementById('beckon-config').textContent);
const root = document.getElementById('app');
const app = new App({ name: 'beckon-answer', version: '1.0.0' }, { availableDisplayModes: ['inline'] });
const RENDERABLE = [
  'yesno',
  'checkbox',
  'text',
  'textarea',
  'number',
  'date',
  'select',
  'radio',
  'multiselect',
];
let item = null;

const el = (tag, props = {}, children = []) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) node.append(child);
  return node;
};
const textOf = (result) => (result.content || []).find((block) => block.type === 'text')?.text;

function itemOf(result) {
  if (result.structuredContent?.id) return result.structuredContent;
  try {
    return JSON.parse(textOf(result) ?? '');
  } catch {
    return null;
  }
}

function openPage(event) {
  event.preventDefault();
  const url = event.target.href;
  app.openLink({ url }).catch(() => window.open(url, '_blank'));
}
const pageLink = (text) =>
  el('a', {
    href: `${config.appUrl}/items/${item.id}`,
    textContent: text,
    target: '_blank',
    onclick: openPage,
  });

function input(field) {
  const name = field.id;
  const choices = (options, type) =>
    options.map((o) =>
      el('label', { className: 'choice' }, [
        el('input', {
          type,
          name,
          value: o.value,
          checked: type === 'radio' ? field.default === o.value : (field.default || []).includes(o.value),
        }),
        ` ${o.label}`,
      ]),
    );
  const yesno = [
    { value: 'true', label: field.yes_label || 'Yes' },
    { value: 'false', label: field.no_label || 'No' },
  ];
  switch (field.type) {
    case 'yesno':
      return el('div', {}, choices(yesno, 'radio'));
    case 'checkbox':
      return el('input', { type: 'checkbox', name, checked: field.default === true });
    case 'textarea':
      return el('textarea', {
        name,
        rows: 3,
        value: field.default || '',
        placeholder: field.placeholder || '',
      });
    case 'select':
      return el('select', { name }, [
        el('option', { value: '', textContent: '' }),
        ...field.options.map((o) =>
          el('option', { value: o.value, textContent: o.label, selected: field.default === o.value }),
        ),
      ]);
    case 'radio':
      return el('div', {}, choices(field.options, 'radio'));
    case 'multiselect':
      return el('div', {}, choices(field.options, 'checkbox'));
    default: // text, number, date
      return el('input', {
        type: field.type,
        name,
        step: 'any',
        value: field.default ?? '',
        placeholder: field.placeholder || '',
      });
  }
}

function valuesOf(form, fields) {
  const values = {};
  for (const field of fields) {
    const named = [...form.elements].filter((node) => node.name === field.id);
    if (field.type === 'checkbox') values[field.id] = named[0].checked;
    else if (field.type === 'multiselect')
      values[field.id] = named.filter((n) => n.checked).map((n) => n.value);
    else {
      const raw = named.find((n) => n.type !== 'radio' || n.checked)?.value ?? '';
      if (raw === '') continue;
      values[field.id] =
        field.type === 'yesno' ? raw === 'true' : field.type === 'number' ? Number(raw) : raw;
    }
  }
  return values;
}

async function send(form, fields, submit, problem) {
  submit.disabled = true;
  problem.textContent = '';
  try {
    const result = await app.callServerTool({
      name: config.answerTool,
      arguments: { id: item.id, values: valuesOf(form, fields) },
    });
    // Refused: the values stay as entered, with the reasons.
    if (result.isError) problem.textContent = textOf(result) || 'The answer was refused.';
    else {
      item = itemOf(result) || item;
      render('Answer recorded.');
    }
  } catch (error) {
    problem.textContent = String(error?.message ?? error);
  }
  submit.disabled = false;
}

function render(note, isError) {
  root.replaceChildren();
  if (!item) {
    root.append(el('p', { className: 'error', textContent: note || 'No item to show.' }));
    return;
  }
  root.append(el('h1', { textContent: item.title }));
  if (item.message) root.append(el('p', { textContent: item.message }));
  root.append(el('div', { className: 'status', textContent: `Status: ${item.status}` }));
  if (note) root.append(el('p', { className: isError ? 'error' : '', textContent: note }));
  const fields = item.form?.fields || [];
  if (item.status !== 'open') {
    const answer = item.response?.values || item.response;
    if (answer) root.append(el('p', { textContent: `Answer: ${JSON.stringify(answer)}` }));
    return;
  }
  // An answer that needs a fresh verification (require_reauth) is given on Beckon's page.
  if (
    item.require_reauth ||
    fields.length === 0 ||
    !fields.every((field) => RENDERABLE.includes(field.type))
  ) {
    root.append(pageLink('Open the question in Beckon'));
    return;
  }
  const rows = fields.map((field) =>
    el('div', {}, [
      el('label', { textContent: field.label + (field.required ? ' *' : '') }),
      input(field),
      ...(field.help ? [el('div', { className: 'status', textContent: field.help })] : []),
    ]),
  );
  const form = el('form', {}, rows);
  // A button, not a submission: a host's sandbox may not allow forms to submit.
  const submit = el('button', { type: 'button', textContent: 'Send answer' });
  const problem = el('p', { className: 'error' });
  form.append(problem, submit);
  form.onsubmit = (event) => event.preventDefault();
  submit.onclick = () => send(form, fields, submit, problem);
  root.append(form, el('div', { className: 'status' }, [pageLink('Open in Beckon')]));
}

function theme(context) {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

// The handlers are set before connecting: the host may send the result right after the handshake.
app.ontoolinput = ({ arguments: args }) => {
  if (!item && args?.title) root.replaceChildren(el('h1', { textContent: args.title }));
};
app.ontoolresult = (result) => {
  item = result.isError ? null : itemOf(result);
  render(result.isError ? textOf(result) : '', result.isError);
};
app.onhostcontextchanged = theme;
app.connect().then(() => theme(app.getHostContext()));
