import { query } from '../procedure';
import { auditMeta, ZAuditPage, ZAuditVerdict, ZListAuditInput } from './audit.contract';

export const auditProcedures = {
  list: query({ meta: auditMeta.list, input: ZListAuditInput, output: ZAuditPage }),
  verify: query({ meta: auditMeta.verify, output: ZAuditVerdict }),
};
