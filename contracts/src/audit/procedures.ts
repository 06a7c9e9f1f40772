import { query } from '../procedure';
import { auditMeta, ZAuditPage, ZListAuditInput } from './audit.contract';

export const auditProcedures = {
  list: query({ meta: auditMeta.list, input: ZListAuditInput, output: ZAuditPage }),
};
