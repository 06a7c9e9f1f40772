import { itemLevels, itemStatuses } from '../enums';
import { ZPageLimit } from '../paging';
import { ZFormFieldShape } from './form-fields';
import { ITEM_DEFAULTS, LIMITS, ZPriority } from './item.contract';

/** The longest bounded wait of `service.ask` / `service.get` (under common MCP client timeouts). */
export const MAX_WAIT_SECONDS = 50;

const fieldTypes = ZFormFieldShape.options.map((field) => field.shape.type.value);

/**
 * What the agent tools (server/src/mcp/tools.ts) tell a model about an argument, written from the
 * contracts' own limits and value sets, so a changed limit changes the description with it.
 */
export const ARGUMENT_TEXT = {
  title: `Short headline people see first (at most ${LIMITS.title} characters)`,
  message: `Longer text (plain text or Markdown, at most ${LIMITS.message} characters)`,
  level: `${itemLevels.join(', ')}; default ${ITEM_DEFAULTS.level}`,
  priority: `${ZPriority.minValue} (lowest) to ${ZPriority.maxValue} (most urgent); default ${ITEM_DEFAULTS.priority}`,
  tags: `Up to ${LIMITS.tags} short labels (at most ${LIMITS.tag} characters each)`,
  metadata: `Any JSON object (at most ${LIMITS.metadataBytes / 1024} KiB as JSON), returned as is`,
  comment: `Comment text (at most ${LIMITS.comment} characters)`,
  callback_url: 'URL (http or https) that receives the signed outcome',
  form: `Form: {id, fields:[{id, type: ${fieldTypes.join('|')}, label, required?, options?:[{value,label}]}]}`,
  status: itemStatuses.join(', '),
  limit: ZPageLimit.description ?? '',
  wait_seconds: `Wait up to this many seconds (at most ${MAX_WAIT_SECONDS}) for a person's outcome; if none arrives in time the open item is returned: call service.get with its id and wait_seconds again`,
} as const;
