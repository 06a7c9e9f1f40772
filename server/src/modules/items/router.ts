import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { assignmentMeta, ZAssignInput } from '../assignment/assignment.contract';
import { actOnItem } from './act-on-item';
import { assignItem, claimItem, unclaimItem } from './assignment';
import { commentMeta, ZAddCommentInput, ZComment, ZTimelineEntry } from './comments.contract';
import { addComment, listComments, timeline } from './comments.service';
import { createItem } from './create-item';
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
import type { ItemAction } from './item-state';
import { getItem, listItems } from './read-items';
import { updateItem } from './update-item';

const read = permissionProcedure('items.read');
const write = permissionProcedure('items.write');
const archive = permissionProcedure('items.archive');

/** A status-machine action without arguments, e.g. POST /api/items/{id}/ack. */
const action = (procedure: typeof write, name: Exclude<ItemAction, 'answer' | 'snooze' | 'expire'>) =>
  procedure
    .meta(itemMeta[name])
    .input(ZItemId)
    .output(ZItem)
    .mutation(({ ctx, input }) =>
      actOnItem(ctx.deps, ctx.identity, ctx.identity.orgId, input.id, { action: name }),
    );

export const itemsRouter = router({
  create: write
    .meta(itemMeta.create)
    .input(ZCreateItemInput)
    .output(ZItem)
    .mutation(({ ctx, input }) => createItem(ctx.deps, ctx.identity, input)),
  list: read
    .meta(itemMeta.list)
    .input(ZListItemsInput)
    .output(ZItemList)
    .query(({ ctx, input }) => listItems(ctx.deps, ctx.identity, input)),
  get: read
    .meta(itemMeta.get)
    .input(ZItemId)
    .output(ZItem)
    .query(({ ctx, input }) => getItem(ctx.deps, ctx.identity, input.id)),
  update: write
    .meta(itemMeta.update)
    .input(ZUpdateItemInput)
    .output(ZItem)
    .mutation(({ ctx, input }) => updateItem(ctx.deps, ctx.identity, input)),
  answer: write
    .meta(itemMeta.answer)
    .input(ZAnswerInput)
    .output(ZItem)
    .mutation(({ ctx, input }) =>
      actOnItem(ctx.deps, ctx.identity, ctx.identity.orgId, input.id, {
        action: 'answer',
        values: input.values,
      }),
    ),
  snooze: write
    .meta(itemMeta.snooze)
    .input(ZSnoozeInput)
    .output(ZItem)
    .mutation(({ ctx, input }) =>
      actOnItem(ctx.deps, ctx.identity, ctx.identity.orgId, input.id, {
        action: 'snooze',
        until: input.until,
      }),
    ),
  ack: action(write, 'ack'),
  dismiss: action(write, 'dismiss'),
  restore: action(write, 'restore'),
  withdraw: action(write, 'withdraw'),
  unsnooze: action(write, 'unsnooze'),
  pin: action(write, 'pin'),
  unpin: action(write, 'unpin'),
  archive: action(archive, 'archive'),
  unarchive: action(archive, 'unarchive'),
  assign: write
    .meta(assignmentMeta.assign)
    .input(ZAssignInput)
    .output(ZItem)
    .mutation(({ ctx, input }) => assignItem(ctx.deps, ctx.identity, input)),
  claim: write
    .meta(assignmentMeta.claim)
    .input(ZItemId)
    .output(ZItem)
    .mutation(({ ctx, input }) => claimItem(ctx.deps, ctx.identity, input.id)),
  unclaim: write
    .meta(assignmentMeta.unclaim)
    .input(ZItemId)
    .output(ZItem)
    .mutation(({ ctx, input }) => unclaimItem(ctx.deps, ctx.identity, input.id)),
  comments: read
    .meta(commentMeta.list)
    .input(ZItemId)
    .output(z.array(ZComment))
    .query(({ ctx, input }) => listComments(ctx.deps, ctx.identity, input.id)),
  addComment: write
    .meta(commentMeta.add)
    .input(ZAddCommentInput)
    .output(ZComment)
    .mutation(({ ctx, input }) => addComment(ctx.deps, ctx.identity, input.id, input.body)),
  timeline: read
    .meta(commentMeta.timeline)
    .input(ZItemId)
    .output(z.array(ZTimelineEntry))
    .query(({ ctx, input }) => timeline(ctx.deps, ctx.identity, input.id)),
});
