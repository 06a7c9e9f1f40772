import { z } from 'zod';
import { publicProcedure, router } from '../../trpc/init';
import { sessionPermissionProcedure, sessionProcedure } from '../../trpc/procedures';
import {
  pushMeta,
  ZDevice,
  ZPreferences,
  ZPushConfig,
  ZRegisterDeviceInput,
  ZUnregisterDeviceInput,
  ZUpdatePreferencesInput,
} from './push.contract';
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
  register: sessionPermissionProcedure('items.read')
    .meta(pushMeta.register)
    .input(ZRegisterDeviceInput)
    .output(ZDevice)
    .mutation(({ ctx, input }) => registerDevice(ctx.deps, ctx.identity, input)),
  unregister: sessionProcedure
    .meta(pushMeta.unregister)
    .input(ZUnregisterDeviceInput)
    .output(z.object({ unregistered: z.boolean() }))
    .mutation(({ ctx, input }) => unregisterDevice(ctx.deps, ctx.identity, input.device_token)),
  devices: sessionProcedure
    .meta(pushMeta.devices)
    .output(z.array(ZDevice))
    .query(({ ctx }) => listDevices(ctx.deps, ctx.identity)),
  config: publicProcedure
    .meta(pushMeta.config)
    .output(ZPushConfig)
    .query(({ ctx }) => pushConfig(ctx.deps)),
  preferences: sessionProcedure
    .meta(pushMeta.preferences)
    .output(ZPreferences)
    .query(({ ctx }) => getPreferences(ctx.deps, ctx.identity)),
  updatePreferences: sessionProcedure
    .meta(pushMeta.updatePreferences)
    .input(ZUpdatePreferencesInput)
    .output(ZPreferences)
    .mutation(({ ctx, input }) => updatePreferences(ctx.deps, ctx.identity, input)),
});
