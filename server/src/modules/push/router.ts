import { pushProcedures } from '@beckon/contracts/push/procedures';
import { implement } from '../../trpc/contract';
import { publicProcedure, router } from '../../trpc/init';
import { sessionPermissionProcedure, sessionProcedure } from '../../trpc/procedures';
import {
  getPreferences,
  listDevices,
  pushConfig,
  registerDevice,
  unregisterDevice,
  updatePreferences,
} from './push.service';

/** Devices and preferences belong to a person: a signed-in session (not an agent's key). */
export const pushRouter = router({
  register: implement(sessionPermissionProcedure('items.read'), pushProcedures.register).mutation(
    ({ ctx, input }) => registerDevice(ctx.deps, ctx.identity, input),
  ),
  unregister: implement(sessionProcedure, pushProcedures.unregister).mutation(({ ctx, input }) =>
    unregisterDevice(ctx.deps, ctx.identity, input.device_token),
  ),
  devices: implement(sessionProcedure, pushProcedures.devices).query(({ ctx }) =>
    listDevices(ctx.deps, ctx.identity),
  ),
  config: implement(publicProcedure, pushProcedures.config).query(({ ctx }) => pushConfig(ctx.deps)),
  preferences: implement(sessionProcedure, pushProcedures.preferences).query(({ ctx }) =>
    getPreferences(ctx.deps, ctx.identity),
  ),
  updatePreferences: implement(sessionProcedure, pushProcedures.updatePreferences).mutation(
    ({ ctx, input }) => updatePreferences(ctx.deps, ctx.identity, input),
  ),
});
