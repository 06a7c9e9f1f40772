/**
 * The files a stranger writes in their own project after `npm install @beckon/sdk @beckon/mcp`.
 * Each script asks a question, prints the item's id, waits for the answer and prints the outcome.
 */

const FORM = `{ id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?' }] }`;

const body = (title: string) => `
const beckon = createClient({ baseUrl: process.env.BECKON_URL, token: process.env.BECKON_TOKEN });
const question = await beckon.ask({ title: ${JSON.stringify(title)}, form: ${FORM} });
console.log(JSON.stringify({ id: question.item.id }));
const outcome = await question.waitForAnswer({ timeoutMs: 30000 });
const missing = await beckon.get('00000000-0000-7000-8000-000000000000').catch((error) => error);
console.log(JSON.stringify({
  status: outcome.status,
  response: outcome.response,
  missing: { notFound: missing instanceof NotFoundError, beckonError: missing instanceof BeckonError, status: missing.status },
}));
`;

export const ESM_SCRIPT = `import { BeckonError, createClient, NotFoundError } from '@beckon/sdk';
${body('Asked from ESM')}`;

export const CJS_SCRIPT = `const { BeckonError, createClient, NotFoundError } = require('@beckon/sdk');
(async () => {${body('Asked from CommonJS')}})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;

/** Uses the client the way its types promise; must compile under strict settings. */
export const TYPED_USE = `import {
  type AskInput,
  type BeckonClient,
  createClient,
  type Item,
  type ItemStatus,
  PlanLimitError,
  ValidationError,
  type WaitOutcome,
} from '@beckon/sdk';

const beckon: BeckonClient = createClient({ baseUrl: 'http://localhost:3000', token: 'key' });

export async function deploy(): Promise<boolean> {
  const input: AskInput = {
    title: 'Deploy?',
    level: 'warning',
    priority: 3,
    tags: ['ops'],
    form: { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] },
  };
  const question = await beckon.ask(input, { idempotencyKey: 'deploy-42' });
  const item: Item = question.item;
  const status: ItemStatus = item.status;
  const outcome: WaitOutcome = await question.waitForAnswer({ timeoutMs: 60_000 });
  const page = await beckon.list({ status: 'open', limit: 10 });
  const titles: string[] = page.items.map((i) => i.title.toUpperCase());
  const channels = await beckon.trpc.channels.list.query();
  try {
    await beckon.answer(item.id, { ok: true });
  } catch (error) {
    if (error instanceof ValidationError) console.log(error.fields);
    if (error instanceof PlanLimitError) console.log(error.key, error.limit);
  }
  console.log(status, titles, channels.length, page.next_cursor?.length);
  return outcome.status === 'answered' && outcome.response?.ok === true;
}
`;

/** The same with misspelled fields: the compiler must name each one (the types are real, not any). */
export const MISSPELLED_USE = `import { createClient } from '@beckon/sdk';

const beckon = createClient({ baseUrl: 'http://localhost:3000', token: 'key' });

export async function typos(): Promise<void> {
  await beckon.notify({ titel: 'Deploy?' });
  const item = await beckon.get('id');
  console.log(item.stauts);
  await beckon.list({ limt: 10 });
}
`;

export const tsconfig = (file: string, module: 'nodenext' | 'preserve') =>
  JSON.stringify({
    compilerOptions: {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      target: 'es2022',
      module,
      moduleResolution: module === 'nodenext' ? 'nodenext' : 'bundler',
      lib: ['es2022', 'dom'],
      types: [],
      noEmit: true,
      // As most projects do: @trpc/server's own declarations need @types/node and ws to check.
      // The misspelled fields prove the types resolve (an unresolved import would be any).
      skipLibCheck: true,
    },
    files: [file],
  });
