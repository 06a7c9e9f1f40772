import type { ItemView } from './item.contract';
import type { ItemStatus } from './item-state';

/** An items row with its channel name, as selected by ITEM_SELECT. */
export type ItemRow = {
  id: string;
  org_id: string;
  title: string;
  message: string | null;
  level: ItemView['level'];
  priority: number;
  channel_id: string | null;
  channel_name: string | null;
  tags: string[];
  form: ItemView['form'];
  metadata: Record<string, unknown>;
  callback_url: string | null;
  deadline_at: Date | null;
  status: ItemStatus;
  status_before_archive: ItemStatus | null;
  response: Record<string, unknown> | null;
  answered_at: Date | null;
  answered_by_type: 'user' | 'agent' | 'system' | null;
  answered_by_id: string | null;
  acked_at: Date | null;
  snoozed_until: Date | null;
  pinned: boolean;
  archived_at: Date | null;
  created_by_type: 'user' | 'agent' | 'system';
  created_by_id: string | null;
  agent_id: string | null;
  created_at: Date;
  updated_at: Date;
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function itemView(row: ItemRow): ItemView {
  return {
    id: row.id,
    org_id: row.org_id,
    title: row.title,
    message: row.message,
    level: row.level,
    priority: row.priority,
    channel_id: row.channel_id,
    channel: row.channel_name,
    tags: row.tags,
    form: row.form,
    metadata: row.metadata,
    callback_url: row.callback_url,
    deadline_at: iso(row.deadline_at),
    status: row.status,
    response: row.response,
    answered_at: iso(row.answered_at),
    answered_by: row.answered_by_type ? { type: row.answered_by_type, id: row.answered_by_id } : null,
    acked_at: iso(row.acked_at),
    snoozed_until: iso(row.snoozed_until),
    pinned: row.pinned,
    archived_at: iso(row.archived_at),
    created_by: { type: row.created_by_type, id: row.created_by_id },
    agent_id: row.agent_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
