import type { Form, Item } from '../types';

/** Which value of which field counts as "yes" for the exit status of `ask --wait`. */
export type YesRule = { field: string; value: string };

/**
 * The rule from `--yes-if field=value`, else the form's only yes/no or checkbox field being true.
 * Null when the question is not a yes/no one: any answer then counts as yes.
 */
export function yesRule(form: Form, yesIf: string | undefined, fail: (m: string) => Error): YesRule | null {
  if (yesIf !== undefined) {
    const at = yesIf.indexOf('=');
    const field = yesIf.slice(0, at);
    if (at < 1) throw fail('--yes-if must be field=value, e.g. --yes-if ok=true or --yes-if choice=deploy');
    if (!form.fields.some((f) => f.id === field)) throw fail(`--yes-if: the form has no field "${field}"`);
    return { field, value: yesIf.slice(at + 1) };
  }
  const switches = form.fields.filter((f) => f.type === 'yesno' || f.type === 'checkbox');
  return switches.length === 1 && switches[0] ? { field: switches[0].id, value: 'true' } : null;
}

/** Whether an answer says yes: the field's value (or one of a multiselect's values) equals the rule's. */
export function saysYes(rule: YesRule | null, response: Record<string, unknown> | null): boolean {
  if (!rule) return true;
  const value = response?.[rule.field];
  const values = Array.isArray(value) ? value : [value];
  return values.some((v) => v !== undefined && v !== null && String(v) === rule.value);
}

/** The dashboard page of an item: the server's address without a trailing `/api`. */
export const itemLink = (url: string, id: string) =>
  `${url.replace(/\/+$/, '').replace(/\/api$/, '')}/items/${id}`;

const elapsed = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

/**
 * Progress of a wait on stderr: one line when it starts, one per change people make (seen,
 * claimed, approvals) and one every `everyMs` while nothing happens.
 */
export function waitProgress(item: Item, url: string, err: (text: string) => void, everyMs = 30_000) {
  const started = Date.now();
  err(`waiting for ${item.title} — ${itemLink(url, item.id)} (item ${item.id})\n`);
  let last = item;
  const timer = setInterval(() => err(`still waiting (${elapsed(Date.now() - started)})\n`), everyMs);
  timer.unref();
  return {
    onUpdate(next: Item) {
      const at = `(${elapsed(Date.now() - started)})`;
      if (next.acked_at && !last.acked_at) err(`seen ${at}\n`);
      const claimer = next.claimed_by;
      if (claimer && claimer.id !== last.claimed_by?.id)
        err(`claimed by ${next.names[claimer.id] ?? claimer.id} ${at}\n`);
      const approved = next.approvals?.approved ?? 0;
      if (next.approvals && approved !== (last.approvals?.approved ?? 0))
        err(`approvals ${approved}/${next.approvals.required} ${at}\n`);
      last = next;
    },
    stop: () => clearInterval(timer),
  };
}
