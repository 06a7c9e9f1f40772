import { z } from 'zod';
import { assignmentMeta, ZAssignInput } from '../assignment/assignment.contract';
import { mutation, query } from '../procedure';
import { commentMeta, ZAddCommentInput, ZComment, ZTimelineEntry } from './comments.contract';
import {
  itemMeta,
  ZAnswerInput,
  ZCreateItemInput,
  ZItem,
  ZItemId,
  ZItemList,
  ZListItemsInput,
  ZSnoozeInput,
  ZUpdateItemInput,
} from './item.contract';

/** A status-machine action without arguments, e.g. POST /api/items/{id}/ack. */
const action = (meta: (typeof itemMeta)[ItemActionName]) => mutation({ meta, input: ZItemId, output: ZItem });
type ItemActionName = Exclude<
  keyof typeof itemMeta,
  'create' | 'list' | 'get' | 'update' | 'answer' | 'snooze'
>;

export const itemsProcedures = {
  create: mutation({ meta: itemMeta.create, input: ZCreateItemInput, output: ZItem }),
  list: query({ meta: itemMeta.list, input: ZListItemsInput, output: ZItemList }),
  get: query({ meta: itemMeta.get, input: ZItemId, output: ZItem }),
  update: mutation({ meta: itemMeta.update, input: ZUpdateItemInput, output: ZItem }),
  answer: mutation({ meta: itemMeta.answer, input: ZAnswerInput, output: ZItem }),
  snooze: mutation({ meta: itemMeta.snooze, input: ZSnoozeInput, output: ZItem }),
  ack: action(itemMeta.ack),
  dismiss: action(itemMeta.dismiss),
  restore: action(itemMeta.restore),
  withdraw: action(itemMeta.withdraw),
  unsnooze: action(itemMeta.unsnooze),
  pin: action(itemMeta.pin),
  unpin: action(itemMeta.unpin),
  archive: action(itemMeta.archive),
  unarchive: action(itemMeta.unarchive),
  assign: mutation({ meta: assignmentMeta.assign, input: ZAssignInput, output: ZItem }),
  claim: mutation({ meta: assignmentMeta.claim, input: ZItemId, output: ZItem }),
  unclaim: mutation({ meta: assignmentMeta.unclaim, input: ZItemId, output: ZItem }),
  comments: query({ meta: commentMeta.list, input: ZItemId, output: z.array(ZComment) }),
  addComment: mutation({ meta: commentMeta.add, input: ZAddCommentInput, output: ZComment }),
  timeline: query({ meta: commentMeta.timeline, input: ZItemId, output: z.array(ZTimelineEntry) }),
};
