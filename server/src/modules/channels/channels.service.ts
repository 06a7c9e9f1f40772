import type { ChannelView, CreateChannelInput } from '@beckon/contracts/channels/channels.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError, isUniqueViolation } from '../../errors';
import { checkAssignment } from '../assignment/assignees';
import { recordOrgChange } from '../audit/audit.service';

type ChannelRow = Omit<ChannelView, 'created_at'> & { created_at: Date };

const channelView = (row: ChannelRow): ChannelView => ({ ...row, created_at: row.created_at.toISOString() });

export async function listChannels(deps: Deps, identity: Identity): Promise<ChannelView[]> {
  const rows = await deps.sql<ChannelRow[]>`
    select id, name, mode, description, escalation, require_reauth, created_at from channels
     where org_id = ${identity.orgId} order by name collate "C"`;
  return rows.map(channelView);
}

export async function createChannel(
  deps: Deps,
  identity: Identity,
  input: CreateChannelInput,
): Promise<ChannelView> {
  await checkAssignment(deps.sql, identity.orgId, { escalation: input.escalation });
  try {
    const row = await deps.sql.begin(async (tx) => {
      const [inserted] = await tx<ChannelRow[]>`
        insert into channels (id, org_id, name, mode, description, escalation, require_reauth)
        values (${uuidv7()}, ${identity.orgId}, ${input.name}, ${input.mode}, ${input.description ?? ''},
                ${tx.json((input.escalation ?? []) as never)},
                ${input.require_reauth ? tx.json(input.require_reauth) : null})
        returning id, name, mode, description, escalation, require_reauth, created_at`;
      const row = inserted as ChannelRow;
      await recordOrgChange(tx, identity, 'channel.create', { channel_id: row.id, name: row.name });
      return row;
    });
    return channelView(row);
  } catch (error) {
    if (isUniqueViolation(error, 'channels_org_name_key'))
      throw AppError.conflict('name_taken', 'channel name already exists');
    throw error;
  }
}
