import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  escalationPolicyMeta as meta,
  ZCreateEscalationPolicyInput,
  ZEscalationPolicy,
  ZEscalationPolicyId,
  ZReplaceEscalationPolicyInput,
} from './escalation-policies.contract';

export const escalationPoliciesProcedures = {
  list: query({ meta: meta.list, output: z.array(ZEscalationPolicy) }),
  create: mutation({ meta: meta.create, input: ZCreateEscalationPolicyInput, output: ZEscalationPolicy }),
  get: query({ meta: meta.get, input: ZEscalationPolicyId, output: ZEscalationPolicy }),
  replace: mutation({ meta: meta.replace, input: ZReplaceEscalationPolicyInput, output: ZEscalationPolicy }),
  delete: mutation({ meta: meta.delete, input: ZEscalationPolicyId, output: ZEscalationPolicy }),
};
