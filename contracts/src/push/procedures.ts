import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  pushMeta,
  ZDevice,
  ZPreferences,
  ZPushAnswer,
  ZPushAnswerInput,
  ZPushConfig,
  ZRegisterDeviceInput,
  ZUnregisterDeviceInput,
  ZUpdatePreferencesInput,
} from './push.contract';

export const pushProcedures = {
  register: mutation({ meta: pushMeta.register, input: ZRegisterDeviceInput, output: ZDevice }),
  unregister: mutation({
    meta: pushMeta.unregister,
    input: ZUnregisterDeviceInput,
    output: z.object({ unregistered: z.boolean() }),
  }),
  devices: query({ meta: pushMeta.devices, output: z.array(ZDevice) }),
  config: query({ meta: pushMeta.config, output: ZPushConfig }),
  answer: mutation({ meta: pushMeta.answer, input: ZPushAnswerInput, output: ZPushAnswer }),
  preferences: query({ meta: pushMeta.preferences, output: ZPreferences }),
  updatePreferences: mutation({
    meta: pushMeta.updatePreferences,
    input: ZUpdatePreferencesInput,
    output: ZPreferences,
  }),
};
