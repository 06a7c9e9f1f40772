import { mutation, query } from '../procedure';
import { auditMeta, ZAuditCheckpoint, ZAuditPage, ZAuditVerdict, ZListAuditInput } from './audit.contract';

export const auditProcedures = {
  list: query({ meta: auditMeta.list, input: ZListAuditInput, output: ZAuditPage }),
  checkpoint: mutation({ meta: auditMeta.checkpoint, output: ZAuditCheckpoint }),
  verify: query({ meta: auditMeta.verify, output: ZAuditVerdict }),
};
