import { itemsProcedures } from '@beckon/contracts/items/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { actOnItem } from './operations/act-on-item';
import { assignItem, claimItem, unclaimItem } from './operations/assign-item';
import { addComment, listComments, timeline } from './operations/comment-on-item';
import { createItem } from './operations/create-item';
import { getItem, listItems } from './operations/read-items';
import { updateItem } from './operations/update-item';
import type { ItemAction } from './state/item-state';

const read = permissionProcedure('items.read');
const write = permissionProcedure('items.write');
const archive = permissionProcedure('items.archive');

/** A status-machine action without arguments, e.g. POST /api/items/{id}/ack. */
const action = (procedure: typeof write, name: Exclude<ItemAction, 'answer' | 'snooze' | 'expire'>) =>
  implement(procedure, itemsProcedures[name]).mutation(({ ctx, input }) =>
    actOnItem(ctx.deps, ctx.identity, ctx.identity.orgId, input.id, { action: name }),
  );

export const itemsRouter = router({
  create: implement(write, itemsProcedures.create).mutation(({ ctx, input }) =>
    createItem(ctx.deps, ctx.identity, input, ctx.trace),
  ),
  list: implement(read, itemsProcedures.list).query(({ ctx, input }) =>
    listItems(ctx.deps, ctx.identity, input),
  ),
  get: implement(read, itemsProcedures.get).query(({ ctx, input }) =>
    getItem(ctx.deps, ctx.identity, input.id),
  ),
  update: implement(write, itemsProcedures.update).mutation(({ ctx, input }) =>
    updateItem(ctx.deps, ctx.identity, input),
  ),
  answer: implement(write, itemsProcedures.answer).mutation(({ ctx, input }) =>
    actOnItem(ctx.deps, ctx.identity, ctx.identity.orgId, input.id, {
      action: 'answer',
      values: input.values,
    }),
  ),
  snooze: implement(write, itemsProcedures.snooze).mutation(({ ctx, input }) =>
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
  assign: implement(write, itemsProcedures.assign).mutation(({ ctx, input }) =>
    assignItem(ctx.deps, ctx.identity, input),
  ),
  claim: implement(write, itemsProcedures.claim).mutation(({ ctx, input }) =>
    claimItem(ctx.deps, ctx.identity, input.id),
  ),
  unclaim: implement(write, itemsProcedures.unclaim).mutation(({ ctx, input }) =>
    unclaimItem(ctx.deps, ctx.identity, input.id),
  ),
  comments: implement(read, itemsProcedures.comments).query(({ ctx, input }) =>
    listComments(ctx.deps, ctx.identity, input.id),
  ),
  addComment: implement(write, itemsProcedures.addComment).mutation(({ ctx, input }) =>
    addComment(ctx.deps, ctx.identity, input.id, input.body),
  ),
  timeline: implement(read, itemsProcedures.timeline).query(({ ctx, input }) =>
    timeline(ctx.deps, ctx.identity, input.id),
  ),
});
