import { z } from 'zod';
import { mutation, query } from '../procedure';
import { settingMeta, ZPutSettingInput, ZSetting } from './settings.contract';

export const settingsProcedures = {
  list: query({ meta: settingMeta.list, output: z.array(ZSetting) }),
  put: mutation({ meta: settingMeta.put, input: ZPutSettingInput, output: ZSetting }),
};
