import { schedulesProcedures as p } from '@beckon/contracts/schedules/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { personFeedUrl, scheduleFeedUrl } from './calendar-feed';
import { createOverride, deleteOverride, listOverrides } from './overrides.service';
import {
  createSchedule,
  deleteSchedule,
  getOnCall,
  getSchedule,
  listSchedules,
  replaceSchedule,
} from './schedules.service';
import { listShifts } from './shifts.service';
import { swapShifts } from './swaps.service';

// As templates: the organization's admins shape schedules, every member reads them.
const read = permissionProcedure('items.read');
const manage = permissionProcedure('channels.manage');
// A member swaps their own shifts.
const write = permissionProcedure('items.write');

export const schedulesRouter = router({
  list: implement(read, p.list).query(({ ctx }) => listSchedules(ctx.deps, ctx.identity)),
  create: implement(manage, p.create).mutation(({ ctx, input }) =>
    createSchedule(ctx.deps, ctx.identity, input),
  ),
  get: implement(read, p.get).query(({ ctx, input }) => getSchedule(ctx.deps, ctx.identity, input.id)),
  replace: implement(manage, p.replace).mutation(({ ctx, input }) =>
    replaceSchedule(ctx.deps, ctx.identity, input),
  ),
  delete: implement(manage, p.delete).mutation(({ ctx, input }) =>
    deleteSchedule(ctx.deps, ctx.identity, input.id),
  ),
  onCall: implement(read, p.onCall).query(({ ctx, input }) => getOnCall(ctx.deps, ctx.identity, input)),
  listOverrides: implement(read, p.listOverrides).query(({ ctx, input }) =>
    listOverrides(ctx.deps, ctx.identity, input.id),
  ),
  createOverride: implement(manage, p.createOverride).mutation(({ ctx, input }) =>
    createOverride(ctx.deps, ctx.identity, input),
  ),
  deleteOverride: implement(manage, p.deleteOverride).mutation(({ ctx, input }) =>
    deleteOverride(ctx.deps, ctx.identity, input),
  ),
  swap: implement(write, p.swap).mutation(({ ctx, input }) => swapShifts(ctx.deps, ctx.identity, input)),
  shifts: implement(read, p.shifts).query(({ ctx, input }) => listShifts(ctx.deps, ctx.identity, input)),
  calendarUrl: implement(read, p.calendarUrl).query(({ ctx, input }) =>
    scheduleFeedUrl(ctx.deps, ctx.identity, input.id),
  ),
  myCalendarUrl: implement(read, p.myCalendarUrl).query(({ ctx }) => personFeedUrl(ctx.deps, ctx.identity)),
});
