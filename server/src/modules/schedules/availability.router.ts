import { availabilityProcedures as p } from '@beckon/contracts/schedules/availability.procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import {
  createOutOfOffice,
  deleteOutOfOffice,
  getAvailability,
  setWorkingHours,
} from './availability.service';

// Every member keeps their own availability.
const own = permissionProcedure('items.read');

export const availabilityRouter = router({
  get: implement(own, p.get).query(({ ctx }) => getAvailability(ctx.deps, ctx.identity)),
  setWorkingHours: implement(own, p.setWorkingHours).mutation(({ ctx, input }) =>
    setWorkingHours(ctx.deps, ctx.identity, input),
  ),
  createOutOfOffice: implement(own, p.createOutOfOffice).mutation(({ ctx, input }) =>
    createOutOfOffice(ctx.deps, ctx.identity, input),
  ),
  deleteOutOfOffice: implement(own, p.deleteOutOfOffice).mutation(({ ctx, input }) =>
    deleteOutOfOffice(ctx.deps, ctx.identity, input.id),
  ),
});
