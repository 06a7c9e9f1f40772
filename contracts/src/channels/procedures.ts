import { z } from 'zod';
import { mutation, query } from '../procedure';
import { channelMeta, ZChannel, ZCreateChannelInput } from './channels.contract';

export const channelsProcedures = {
  list: query({ meta: channelMeta.list, output: z.array(ZChannel) }),
  create: mutation({ meta: channelMeta.create, input: ZCreateChannelInput, output: ZChannel }),
};
