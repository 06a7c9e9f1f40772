import type { TemplateView, UpsertTemplateInput } from '@beckon/contracts/templates/templates.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { checkAssignment } from '../assignment/assignees';
import { recordOrgChange } from '../audit/audit.service';

type TemplateRow = Omit<TemplateView, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };

const templateView = (row: TemplateRow): TemplateView => ({
  id: row.id,
  name: row.name,
  description: row.description,
  fields: row.fields,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export async function listTemplates(deps: Deps, identity: Identity): Promise<TemplateView[]> {
  const { sql } = deps;
  const rows = await sql<TemplateRow[]>`
    select id, name, description, fields, created_at, updated_at from templates where org_id = ${identity.orgId} order by name collate "C"`;
  return rows.map(templateView);
}

/** Creates the template, or replaces description and fields of the one with that name. */
export async function upsertTemplate(
  deps: Deps,
  identity: Identity,
  input: UpsertTemplateInput,
): Promise<TemplateView> {
  const { sql } = deps;
  const channelId = input.fields.channel_id;
  if (channelId) {
    const [channel] =
      await sql`select 1 from channels where id = ${channelId} and org_id = ${identity.orgId}`;
    if (!channel) throw AppError.invalid({ 'fields.channel_id': 'unknown channel' });
  }
  await checkAssignment(sql, identity.orgId, input.fields, 'fields.');
  const row = await sql.begin(async (tx) => {
    const [saved] = await tx<(TemplateRow & { created: boolean })[]>`
      insert into templates (id, org_id, name, description, fields)
      values (${uuidv7()}, ${identity.orgId}, ${input.name}, ${input.description ?? ''},
              ${tx.json(input.fields as never)})
      on conflict (org_id, name) do update
        set description = excluded.description, fields = excluded.fields, updated_at = now()
      returning id, name, description, fields, created_at, updated_at, (xmax = 0) as created`;
    const row = saved as TemplateRow & { created: boolean };
    await recordOrgChange(tx, identity, row.created ? 'template.create' : 'template.update', {
      template_id: row.id,
      name: row.name,
    });
    return row;
  });
  return templateView(row);
}

export async function deleteTemplate(deps: Deps, identity: Identity, name: string): Promise<TemplateView> {
  const row = await deps.sql.begin(async (tx) => {
    const [deleted] = await tx<TemplateRow[]>`
      delete from templates where org_id = ${identity.orgId} and name = ${name}
      returning id, name, description, fields, created_at, updated_at`;
    if (!deleted) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'template.delete', { template_id: deleted.id, name: deleted.name });
    return deleted;
  });
  return templateView(row);
}
