import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  gateMeta,
  ZCreateGrantInput,
  ZGateGrant,
  ZGateRequest,
  ZGateRequestInput,
  ZGrantId,
} from './gate.contract';

export const gateProcedures = {
  request: mutation({ meta: gateMeta.request, input: ZGateRequestInput, output: ZGateRequest }),
  grant: mutation({ meta: gateMeta.grant, input: ZCreateGrantInput, output: ZGateGrant }),
  list: query({ meta: gateMeta.list, output: z.array(ZGateGrant) }),
  revoke: mutation({ meta: gateMeta.revoke, input: ZGrantId, output: ZGateGrant }),
};
