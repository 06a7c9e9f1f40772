import { randomUUID } from 'node:crypto';
import type { Sql } from '@beckon/db';
import { Factories, type HttpClient, type TestServer } from '../harness';

/** An organization of the sweep: its owner (every permission) signed in on both processes. */
export type Tenant = {
  id: string;
  userId: string;
  token: string;
  owner: HttpClient;
  factories: Factories;
  sql: Sql;
};

export const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

/** An organization on Enterprise (no plan gate stands between the sweep and a tenancy check). */
export async function tenant(server: TestServer): Promise<Tenant> {
  const factories = new Factories(server.database.db);
  const account = await factories.account('owner');
  await server.database.sql`
    update subscriptions set plan_id = (select id from plans where code = 'enterprise')
     where org_id = ${account.org.id}`;
  return {
    id: account.org.id,
    userId: account.user.id,
    token: account.token,
    owner: server.resource.as(account.token),
    factories,
    sql: server.database.sql,
  };
}

const unique = () => randomUUID().slice(0, 8);

async function created(pending: Promise<{ status: number; body: unknown }>, what: string) {
  const res = await pending;
  if (res.status >= 300)
    throw new Error(`could not create ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, string>;
}

/** How to make a real object of one kind in a tenant; `chosen` holds the route's other values. */
type Maker = (t: Tenant, chosen: Record<string, string>) => Promise<string>;

const item: Maker = async (t) =>
  (await created(t.owner.post('/api/items', { title: 'sweep', form: FORM }), 'an item')).id!;
const member: Maker = async (t) => {
  const user = await t.factories.user();
  await t.factories.member(t.id, user.id, 'member');
  return user.id;
};

const schedule: Maker = async (t) => {
  const layer = {
    members: [{ type: 'user', id: t.userId }],
    start: '2026-01-05T09:00',
    turn: { unit: 'week', count: 1 },
  };
  const body = { name: `s-${unique()}`, time_zone: 'UTC', layers: [layer] };
  return (await created(t.owner.post('/api/schedules', body), 'a schedule')).id!;
};

const escalationPolicy: Maker = async (t) => {
  const levels = [{ targets: [{ type: 'user', id: t.userId }], delay_minutes: 5 }];
  const body = { name: `p-${unique()}`, levels };
  return (await created(t.owner.post('/api/escalation-policies', body), 'an escalation policy')).id!;
};

const outOfOffice: Maker = async (t) => {
  const body = { starts_at: '2026-01-05T09:00:00Z', ends_at: '2026-01-06T09:00:00Z' };
  return (await created(t.owner.post('/api/me/out-of-office', body), 'an out-of-office period')).id!;
};

const MAKERS = {
  schedule,
  'out-of-office': outOfOffice,
  'escalation-policy': escalationPolicy,
  item,
  // An answered item: what has a receipt.
  'decided-item': async (t, chosen) => {
    const itemId = await item(t, chosen);
    await created(t.owner.post(`/api/items/${itemId}/answer`, { values: { ok: true } }), 'an answer');
    return itemId;
  },
  attachment: async (t, chosen) => {
    const itemId = chosen.id ?? (await item(t, {}));
    const body = { filename: 'a.txt', content_type: 'text/plain', data: 'aGk=' };
    return (await created(t.owner.post(`/api/items/${itemId}/attachments`, body), 'an attachment')).id!;
  },
  template: async (t) => {
    const body = { name: `t-${unique()}`, fields: { title: 'x' } };
    return (await created(t.owner.post('/api/templates', body), 'a template')).name!;
  },
  setting: async (t) => {
    const key = `k-${unique()}`;
    await created(t.owner.put(`/api/settings/${key}`, { value: 1 }), 'a setting');
    return key;
  },
  member,
  'team-member': async (t, chosen) => {
    const userId = await member(t, chosen);
    if (chosen.team_id) {
      await created(
        t.owner.post(`/api/admin/teams/${chosen.team_id}/members`, { user_id: userId }),
        'a team member',
      );
    }
    return userId;
  },
  role: async (t) => {
    const body = { name: `r-${unique()}`, description: '', permissions: ['items.read'] };
    return (await created(t.owner.post('/api/admin/roles', body), 'a role')).id!;
  },
  team: async (t) =>
    (await created(t.owner.post('/api/admin/teams', { name: `team ${unique()}` }), 'a team')).id!,
  invitation: async (t) => {
    const body = { kind: 'link', role_id: (await t.factories.systemRole('viewer')).id };
    return (await created(t.owner.post('/api/admin/invitations', body), 'an invitation')).id!;
  },
  'inbound-webhook': async (t) =>
    (await created(t.owner.post('/api/inbound-webhooks', { name: 'in' }), 'an inbound webhook')).id!,
  webhook: async (t) => {
    const body = { name: 'out', url: 'https://example.com/hook', events: ['item.created'] };
    return (await created(t.owner.post('/api/webhooks', body), 'a webhook')).id!;
  },
  'schedule-override': async (t, chosen) => {
    const scheduleId = chosen.id ?? (await schedule(t, {}));
    const body = { user_id: t.userId, starts_at: '2026-01-05T09:00:00Z', ends_at: '2026-01-06T09:00:00Z' };
    return (await created(t.owner.post(`/api/schedules/${scheduleId}/overrides`, body), 'an override')).id!;
  },
  channel: async (t) =>
    (await created(t.owner.post('/api/channels', { name: `c-${unique()}`, mode: 'open' }), 'a channel')).id!,
  agent: async (t) =>
    (await created(t.owner.post('/api/admin/agents', { name: `a-${unique()}` }), 'an agent')).id!,
  'api-key': async (t) => (await t.factories.apiKey(t.id, t.userId)).id,
  // A passkey belongs to its person (not to an organization): another person's is a 404.
  passkey: async (t) => {
    const [row] = await t.sql<{ id: string }[]>`
      insert into passkeys (user_id, credential_id, public_key, name, device_type)
      values (${t.userId}, ${`sweep-${unique()}`}, 'AAAA', 'sweep', 'singleDevice') returning id`;
    return row!.id;
  },
  organization: async (t) => t.id,
  'gate-grant': async (t) => {
    const asked = await created(
      t.owner.post('/api/gate/requests', { rule: 'sweep', title: 'sweep' }),
      'a gate request',
    );
    const itemId = (asked.item as unknown as { id: string }).id;
    await created(
      t.owner.post(`/api/items/${itemId}/answer`, { values: { decision: 'allow_for' } }),
      'an answer',
    );
    return (await created(t.owner.post('/api/gate/grants', { item_id: itemId }), 'a grant')).id!;
  },
} satisfies Record<string, Maker>;

export type Kind = keyof typeof MAKERS;

/**
 * What a route's value names, from where it stands: a path parameter by the path segment before
 * it (`/items/{id}` → item), any other UUID field of the input by its name. Plans are shared by
 * every organization, and a Teams bot's app and tenant ids are Microsoft's, not an organization's
 * objects (`global`). The one table to extend when a route names a new kind.
 */
const KIND_OF: Record<string, Kind | 'global'> = {
  items: 'item',
  item_id: 'item',
  attachments: 'attachment',
  templates: 'template',
  settings: 'setting',
  users: 'member',
  user_id: 'member',
  members: 'team-member',
  roles: 'role',
  role_id: 'role',
  teams: 'team',
  team_id: 'team',
  invitations: 'invitation',
  'inbound-webhooks': 'inbound-webhook',
  webhooks: 'webhook',
  webhook_id: 'webhook',
  channel_id: 'channel',
  routes: 'channel',
  muted_channels: 'channel',
  agent_id: 'agent',
  key_id: 'api-key',
  org_id: 'organization',
  plan_id: 'global',
  app_id: 'global',
  tenant_id: 'global',
  template: 'template',
  grants: 'gate-grant',
  schedules: 'schedule',
  overrides: 'schedule-override',
  'escalation-policies': 'escalation-policy',
  escalation_policy_id: 'escalation-policy',
  'out-of-office': 'out-of-office',
  delegate_id: 'member',
  with_user_id: 'member',
  passkeys: 'passkey',
};

/** Input fields that name an object by its name, not its UUID: swept like the UUID fields. */
export const NAMED_REFERENCES = ['template'];

/** One value of a route that names an object: where it stands and what it names. */
export type Position = { name: string; kind: Kind | 'global' };

export function kindOf(route: string, name: string, inPath: boolean): Kind | 'global' {
  if (route.endsWith('/receipt') && inPath) return 'decided-item';
  const key = inPath ? (new RegExp(`/([\\w-]+)/\\{${name}\\}`).exec(route)?.[1] ?? name) : name;
  const kind = KIND_OF[key];
  if (!kind) {
    throw new Error(
      `no foreign object known for ${route} (${name}): add "${key}" to KIND_OF in tests/src/security/tenants.ts`,
    );
  }
  return kind;
}

export const make = (kind: Kind, t: Tenant, chosen: Record<string, string>) => MAKERS[kind](t, chosen);

let tables: string[] | undefined;

/**
 * Everything of one organization, as JSON: every row of every table with an `org_id`, the
 * organization itself, its teams' members and its members' users. Compared before and after a
 * foreign call, it shows that nothing of the organization changed, wherever the change would be.
 */
export async function snapshot(sql: Sql, orgId: string): Promise<Record<string, unknown>> {
  tables ??= (
    await sql<{ table_name: string }[]>`
      select table_name from information_schema.columns
       where table_schema = 'public' and column_name = 'org_id' order by table_name`
  ).map((r) => r.table_name);
  const rows = (from: string) => `(select coalesce(json_agg(t order by t::text), '[]'::json) from ${from})`;
  const parts = [
    ...tables.map((name) => `'${name}', ${rows(`"${name}" t where t.org_id = $1`)}`),
    `'organizations', ${rows('organizations t where t.id = $1')}`,
    `'team_members', ${rows('team_members t where t.team_id in (select id from teams where org_id = $1)')}`,
    `'users', ${rows('users t where t.id in (select user_id from memberships where org_id = $1)')}`,
  ];
  // A function takes at most 100 arguments: the pairs go in groups of 40, joined as jsonb.
  const groups: string[] = [];
  for (let i = 0; i < parts.length; i += 40)
    groups.push(`jsonb_build_object(${parts.slice(i, i + 40).join(', ')})`);
  const [row] = await sql.unsafe<{ data: Record<string, unknown> }[]>(
    `select ${groups.join(' || ')} as data`,
    [orgId],
  );
  return row!.data;
}

/** The ids of an organization's rows (in a snapshot): none may appear in another's answers. */
export function idsIn(data: Record<string, unknown>): Set<string> {
  const ids = new Set<string>();
  for (const rows of Object.values(data)) {
    for (const row of rows as Array<{ id?: unknown }>) if (typeof row.id === 'string') ids.add(row.id);
  }
  return ids;
}
