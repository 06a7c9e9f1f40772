import type { PutSettingInput, SettingView } from '@beckon/contracts/settings/settings.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { recordOrgChange } from '../audit/audit.service';

type SettingRow = { key: string; value: unknown; updated_at: Date };

const settingView = (row: SettingRow): SettingView => ({
  key: row.key,
  value: row.value,
  updated_at: row.updated_at.toISOString(),
});

export async function listSettings(deps: Deps, identity: Identity): Promise<SettingView[]> {
  const rows = await deps.sql<SettingRow[]>`
    select key, value, updated_at from settings where org_id = ${identity.orgId} order by key collate "C"`;
  return rows.map(settingView);
}

export async function putSetting(
  deps: Deps,
  identity: Identity,
  input: PutSettingInput,
): Promise<SettingView> {
  // Passed as JSON text so that a JSON null is stored as the value null, not as SQL NULL.
  const json = JSON.stringify(input.value);
  const row = await deps.sql.begin(async (tx) => {
    const [saved] = await tx<SettingRow[]>`
      insert into settings (org_id, key, value, updated_at)
      values (${identity.orgId}, ${input.key}, ${json}::text::jsonb, now())
      on conflict (org_id, key) do update set value = excluded.value, updated_at = now()
      returning key, value, updated_at`;
    await recordOrgChange(tx, identity, 'setting.update', { key: input.key });
    return saved as SettingRow;
  });
  return settingView(row);
}
