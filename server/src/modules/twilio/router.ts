import { twilioProcedures } from '@beckon/contracts/twilio/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { connect, disconnect, TWILIO_PERMISSION, twilioStatus } from './connection.service';
import { deletePhone, getPhone, putPhone, verifyPhone } from './phones.service';

const manage = permissionProcedure(TWILIO_PERMISSION);

export const twilioRouter = router({
  status: implement(manage, twilioProcedures.status).query(({ ctx }) => twilioStatus(ctx.deps, ctx.identity)),
  connect: implement(manage, twilioProcedures.connect).mutation(({ ctx, input }) =>
    connect(ctx.deps, ctx.identity, input),
  ),
  disconnect: implement(manage, twilioProcedures.disconnect).mutation(({ ctx }) =>
    disconnect(ctx.deps, ctx.identity),
  ),
  phone: implement(sessionProcedure, twilioProcedures.phone).query(({ ctx }) =>
    getPhone(ctx.deps, ctx.identity),
  ),
  putPhone: implement(sessionProcedure, twilioProcedures.putPhone).mutation(({ ctx, input }) =>
    putPhone(ctx.deps, ctx.identity, input),
  ),
  verifyPhone: implement(sessionProcedure, twilioProcedures.verifyPhone).mutation(({ ctx, input }) =>
    verifyPhone(ctx.deps, ctx.identity, input.code),
  ),
  deletePhone: implement(sessionProcedure, twilioProcedures.deletePhone).mutation(({ ctx }) =>
    deletePhone(ctx.deps, ctx.identity),
  ),
});
