import { mutation, query } from '../procedure';
import { emailMeta, ZEmailSettings, ZUpdateEmailSettingsInput } from './email.contract';

export const emailProcedures = {
  settings: query({ meta: emailMeta.settings, output: ZEmailSettings }),
  updateSettings: mutation({
    meta: emailMeta.updateSettings,
    input: ZUpdateEmailSettingsInput,
    output: ZEmailSettings,
  }),
};
