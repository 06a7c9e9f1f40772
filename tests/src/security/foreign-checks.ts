import { isDeepStrictEqual } from 'node:util';
import { PARALLEL } from './access-checks';
import { type Answer, type Call, describeTarget, inPool, type Target } from './targets';
import {
  idsIn,
  type Kind,
  kindOf,
  make,
  NAMED_REFERENCES,
  type Position,
  snapshot,
  type Tenant,
} from './tenants';

/**
 * What a call needs besides the ids it names, so that the only thing wrong with it is whose the
 * ids are: each is proven valid by the control call (the same input with the caller's own
 * objects must not be a 400, 404 or 422). A new route with required fields needs a line here.
 */
const SAMPLE_INPUT: Record<string, (home: Tenant) => Record<string, unknown>> = {
  'items.create': () => ({ title: 'sweep' }),
  'gate.request': () => ({ rule: 'Bash(sweep)', title: 'sweep' }),
  'items.update': () => ({ title: 'changed' }),
  'items.answer': () => ({ values: { ok: true } }),
  'items.snooze': () => ({ until: new Date(Date.now() + 3_600_000).toISOString() }),
  'items.addComment': () => ({ body: 'hello' }),
  // Its nested user and team ids are checked by tests/src/items/assignees.test.ts.
  'items.assign': () => ({ assignees: [] }),
  'attachments.create': () => ({ filename: 'a.txt', content_type: 'text/plain', data: 'aGk=' }),
  'settings.put': () => ({ value: 2 }),
  'admin.updateRole': () => ({ description: 'changed' }),
  'admin.updateTeam': () => ({ name: 'renamed' }),
  'admin.createInvitation': () => ({ kind: 'link' }),
  'accounts.createApiKey': () => ({ label: 'sweep' }),
  'accounts.renamePasskey': () => ({ name: 'renamed' }),
  'slack.putRoute': () => ({ slack_channel_id: 'C0SWEEP' }),
  'telegram.putRoute': () => ({ chat_id: '-1001' }),
  'discord.putRoute': () => ({ discord_channel_id: '100000000000000001' }),
  'teams.putRoute': () => ({ conversation_id: '19:foreign@thread.tacv2' }),
  // A layer needs a member of the caller's organization (its nested ids: tests/src/oncall).
  'schedules.replace': (home) => ({
    name: `s-${Math.random().toString(36).slice(2, 10)}`,
    time_zone: 'UTC',
    layers: [
      {
        members: [{ type: 'user', id: home.userId }],
        start: '2026-01-05T09:00',
        turn: { unit: 'day', count: 1 },
      },
    ],
  }),
  'schedules.createOverride': () => ({ starts_at: '2026-01-05T09:00:00Z', ends_at: '2026-01-06T09:00:00Z' }),
  // The other member is not on call then: a 409 `not_on_call` once the ids are the caller's own.
  'schedules.swap': () => ({
    mine: { starts_at: '2026-01-05T09:00:00Z', ends_at: '2026-01-06T09:00:00Z' },
    theirs: { starts_at: '2026-01-06T09:00:00Z', ends_at: '2026-01-07T09:00:00Z' },
  }),
  'escalationPolicies.replace': (home) => ({
    name: `p-${Math.random().toString(36).slice(2, 10)}`,
    levels: [{ targets: [{ type: 'user', id: home.userId }], delay_minutes: 5 }],
  }),
  'availability.createOutOfOffice': () => ({
    starts_at: '2026-01-05T09:00:00Z',
    ends_at: '2026-01-06T09:00:00Z',
  }),
  'channels.create': () => ({ name: `c-${Math.random().toString(36).slice(2, 10)}`, mode: 'open' }),
};

/** The values of a route that name objects: in path order, then the other UUID fields, then names. */
export function positions(t: Target): Position[] {
  return [
    ...t.pathParams.map((name) => ({ name, kind: kindOf(t.route, name, true) })),
    ...t.uuidFields.map((name) => ({ name, kind: kindOf(t.route, name, false) })),
    // References by name rather than by UUID (a template's name in an item's creation).
    ...Object.keys(t.fields)
      .filter((name) => NAMED_REFERENCES.includes(name) && !t.pathParams.includes(name))
      .map((name) => ({ name, kind: kindOf(t.route, name, false) })),
  ];
}

async function ownValues(list: Position[], tenant: Tenant) {
  const chosen: Record<string, string> = {};
  for (const p of list) if (p.kind !== 'global') chosen[p.name] = await make(p.kind, tenant, chosen);
  return chosen;
}

/** The values as the input takes them: a field holding a list of UUIDs gets a list of one. */
const asInput = (t: Target, values: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(values).map(([name, v]) => [name, t.fields[name]?.format === 'uuid[]' ? [v] : v]),
  );

type Body = { error?: string; fields?: Record<string, string> };
const show = (a: Answer) => `${a.status} ${a.text.slice(0, 200)}`;

function changedTables(before: Record<string, unknown>, after: Record<string, unknown>) {
  return Object.keys(after).filter((table) => !isDeepStrictEqual(before[table], after[table]));
}

export type ForeignOptions = {
  /** Who calls (a credential of `home`). */
  token: string;
  /** The caller's organization: the route's other values are its objects. */
  home: Tenant;
  /** Where the object named at one position comes from (made by its owner). */
  victim: Tenant;
  /** Only positions naming these kinds (all by default). */
  kinds?: Kind[];
  /** Also call with the caller's own objects, proving the input is otherwise valid. */
  control?: boolean;
};

/**
 * For each procedure and each value that names an object, the same call with the object of
 * another organization at that place: a 404 (or a 400 naming that field, where the
 * specification makes an unknown reference a validation error), never the object; a list
 * filtered by it shows nothing of it; an upsert by key (PUT) acts on the caller's own. The victim's data is compared
 * before and after: nothing of it may change.
 */
export async function checkForeignIds(call: Call, targets: Target[], options: ForeignOptions) {
  const { token, home, victim } = options;
  const units = targets
    .filter((x) => x.protect)
    .flatMap((t) => {
      const all = positions(t);
      const kinds = (p: Position) => !options.kinds || options.kinds.includes(p.kind as Kind);
      const swept = all.filter((p) => p.kind !== 'global' && kinds(p));
      // One foreign value at a time, and, where a route names several, all of them together
      // (an attachment of the other organization's item: each alone would not match anyway).
      const foreign = swept.map((p) => [p]);
      if (swept.length > 1) foreign.push(swept);
      return foreign.map((theirs) => ({ t, all, theirs }));
    });
  // The objects first (independent, so several at a time); then each call alone between two
  // snapshots of the victim, so a change is pinned on the call that made it.
  const prepared = await inPool(units, PARALLEL, async ({ t, all, theirs }) => ({
    own: await ownValues(all, home),
    foreign: await ownValues(theirs, victim),
    sample: SAMPLE_INPUT[t.path]?.(home) ?? {},
  }));
  const problems: string[] = [];
  for (const [i, { t, theirs }] of units.entries()) {
    const { own, foreign, sample } = prepared[i]!;
    const before = await snapshot(victim.sql, victim.id);
    const res = await call(t, token, { ...sample, ...asInput(t, own), ...asInput(t, foreign) });
    const after = await snapshot(victim.sql, victim.id);
    const named = theirs.map((p) => `${p.kind} as ${p.name}`).join(' and ');
    const what = `${describeTarget(t)} with another organization's ${named}`;
    const body = (res.body ?? {}) as Body;
    const leaked = [...idsIn(before)].filter((id) => res.text.includes(id));
    // 503: a feature without its provider configured (billing, Slack, Telegram, Discord) answers
    // nothing at all, to anyone; tests/src/slack and tests/src/chat cover their routes configured.
    const refused =
      (res.status === 404 && body.error === 'not found') ||
      res.status === 503 ||
      (res.status === 400 &&
        theirs.some((p) =>
          Object.keys(body.fields ?? {}).some((f) => f === p.name || f.startsWith(`${p.name}.`)),
        ));
    // A filter of a list (a query field) may match nothing; an upsert by key (PUT) makes the
    // caller's own. An object named in the path of a read is a 404, whatever the answer shows.
    const inPath = theirs.some((p) => t.pathParams.includes(p.name));
    const upsert = t.method === 'PUT' && theirs.every((p) => t.pathParams.includes(p.name));
    const harmless = res.status < 300 && ((t.type === 'query' && !inPath) || upsert) && leaked.length === 0;
    if (!refused && !harmless) problems.push(`${what}: ${show(res)}; expected 404`);
    if (leaked.length > 0) problems.push(`${what}: the answer holds its ids ${leaked.join(', ')}`);
    const changed = changedTables(before, after);
    if (changed.length > 0) problems.push(`${what}: changed its ${changed.join(', ')}`);
  }
  if (options.control) {
    const controls = await inPool([...units.entries()], PARALLEL, ([i, { t }]) =>
      call(t, token, { ...prepared[i]!.sample, ...asInput(t, prepared[i]!.own) }),
    );
    for (const [i, { t }] of units.entries()) {
      const control = controls[i]!;
      if ([400, 401, 403, 404, 422, 500].includes(control.status)) {
        problems.push(
          `${describeTarget(t)} with the caller's own objects: ${show(control)}; the foreign check proves ` +
            'nothing until this passes (add the missing fields to SAMPLE_INPUT in foreign-checks.ts)',
        );
      }
    }
  }
  return { problems, checked: units.length };
}

/**
 * Every list a caller can read without naming an object (GET /api/items, /api/audit…) holds
 * none of another organization's ids.
 */
export async function checkListsHoldNoForeignIds(
  call: Call,
  targets: Target[],
  token: string,
  victim: Tenant,
) {
  const ids = idsIn(await snapshot(victim.sql, victim.id));
  const problems: string[] = [];
  const lists = targets.filter((t) => t.protect && t.type === 'query' && t.pathParams.length === 0);
  const answers = await inPool(lists, PARALLEL, (t) => call(t, token, {}));
  for (const [i, t] of lists.entries()) {
    const res = answers[i]!;
    // 503: billing without a payment provider configured answers nothing at all.
    if (res.status !== 200 && res.status !== 503)
      problems.push(`${describeTarget(t)}: ${show(res)}; expected 200`);
    const leaked = [...ids].filter((id) => res.text.includes(id));
    if (leaked.length > 0)
      problems.push(`${describeTarget(t)}: holds another organization's ${leaked.join(', ')}`);
  }
  return { problems, lists: lists.length, ids: ids.size };
}
