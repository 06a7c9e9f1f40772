import type { Identity } from '../auth/identity';
import type { Deps } from '../deps';
import type { ItemStatus } from '../modules/items/state/item-state';
import { outcome } from '../modules/items/state/item-state';

/** How long a task is kept when the client names no ttl, and the longest it may name. */
export const DEFAULT_TASK_TTL_MS = 7 * 24 * 3600_000;
export const MAX_TASK_TTL_MS = 30 * 24 * 3600_000;
/** What clients are told to wait between two `tasks/get` (people answer in minutes). */
export const POLL_INTERVAL_MS = 5_000;
const PAGE = 50;

export type TaskStatus = 'working' | 'completed' | 'cancelled';

/** A task as `tasks/get`, `tasks/list` and `CreateTaskResult` show it. */
export type McpTask = {
  taskId: string;
  status: TaskStatus;
  statusMessage: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
};

export type TaskRow = {
  id: string;
  item_id: string;
  tool: string;
  ttl_ms: number;
  created_at: Date;
  item_status: ItemStatus;
  status_before_archive: ItemStatus | null;
  item_updated_at: Date;
};

/**
 * The task's status, read from its item's (one source of truth): open is working; an outcome
 * (answered, dismissed, expired) completes it, with the outcome as its message; withdrawn (by
 * tasks/cancel or otherwise) cancels it. An archived item counts as the status it was archived from.
 */
export function taskOf(row: TaskRow): McpTask {
  const itemStatus = outcome(row.item_status, row.status_before_archive);
  const status: TaskStatus =
    itemStatus === 'open' ? 'working' : itemStatus === 'withdrawn' ? 'cancelled' : 'completed';
  return {
    taskId: row.id,
    status,
    statusMessage: itemStatus === 'open' ? 'waiting for a person' : itemStatus,
    createdAt: row.created_at.toISOString(),
    lastUpdatedAt: new Date(Math.max(row.item_updated_at.getTime(), row.created_at.getTime())).toISOString(),
    ttl: row.ttl_ms,
    pollInterval: POLL_INTERVAL_MS,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Tasks belong to the credential's agent (an API key), else to the person (OAuth, session). */
const owner = (identity: Identity) => ({ agentId: identity.agentId, userId: identity.userId });
const ownedBy = (deps: Deps, identity: Identity) =>
  identity.agentId
    ? deps.sql`t.agent_id = ${identity.agentId}`
    : deps.sql`t.agent_id is null and t.user_id = ${identity.userId}`;

/**
 * Stores a task following `itemId`; the organization's expired tasks are purged on the way (those
 * of organizations making none go with prune_expired).
 */
export async function createTask(
  deps: Deps,
  identity: Identity,
  itemId: string,
  tool: string,
  ttl: number | null | undefined,
): Promise<McpTask> {
  const ttlMs = Math.min(Math.max(ttl ?? DEFAULT_TASK_TTL_MS, 1_000), MAX_TASK_TTL_MS);
  const { agentId, userId } = owner(identity);
  const [row] = await deps.sql<TaskRow[]>`
    with purged as (
      delete from mcp_tasks where org_id = ${identity.orgId} and id in (
        select id from mcp_tasks where org_id = ${identity.orgId} and expires_at < now()
         limit 100 for update skip locked)),
    task as (
      insert into mcp_tasks (id, org_id, agent_id, user_id, item_id, tool, ttl_ms, expires_at)
      values (uuidv7(), ${identity.orgId}, ${agentId}, ${userId}, ${itemId}, ${tool}, ${ttlMs},
              now() + ${ttlMs} * interval '1 millisecond')
      returning id, org_id, item_id, tool, ttl_ms, created_at)
    select task.id, task.item_id, task.tool, task.ttl_ms, task.created_at,
           i.status as item_status, i.status_before_archive, i.updated_at as item_updated_at
      from task join items i on i.org_id = task.org_id and i.id = task.item_id`;
  if (!row) throw new Error('task not stored');
  return taskOf(row);
}

/** The caller's task, or null: unknown, expired, or another agent's (or person's). */
export async function findTask(deps: Deps, identity: Identity, taskId: string): Promise<TaskRow | null> {
  if (!UUID.test(taskId)) return null;
  const [row] = await deps.sql<TaskRow[]>`
    select t.id, t.item_id, t.tool, t.ttl_ms, t.created_at,
           i.status as item_status, i.status_before_archive, i.updated_at as item_updated_at
      from mcp_tasks t join items i on i.org_id = t.org_id and i.id = t.item_id
     where t.id = ${taskId} and t.org_id = ${identity.orgId} and t.expires_at > now()
       and ${ownedBy(deps, identity)}`;
  return row ?? null;
}

/** A page of the caller's tasks, newest first; the cursor is the last task id of the page. */
export async function listTasks(
  deps: Deps,
  identity: Identity,
  cursor: string | undefined,
): Promise<{ tasks: McpTask[]; nextCursor?: string } | null> {
  if (cursor !== undefined && !UUID.test(cursor)) return null;
  const rows = await deps.sql<TaskRow[]>`
    select t.id, t.item_id, t.tool, t.ttl_ms, t.created_at,
           i.status as item_status, i.status_before_archive, i.updated_at as item_updated_at
      from mcp_tasks t join items i on i.org_id = t.org_id and i.id = t.item_id
     where t.org_id = ${identity.orgId} and t.expires_at > now()
       and ${ownedBy(deps, identity)}
       ${cursor ? deps.sql`and t.id < ${cursor}` : deps.sql``}
     order by t.id desc limit ${PAGE + 1}`;
  const page = rows.slice(0, PAGE);
  return {
    tasks: page.map(taskOf),
    ...(rows.length > PAGE ? { nextCursor: page.at(-1)?.id } : {}),
  };
}
