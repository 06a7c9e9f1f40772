import { ZMemberRef } from '../admin/members.contract';
import { mutation, query } from '../procedure';
import { privacyMeta, ZEraseMeInput, ZErasure, ZPersonExport } from './privacy.contract';
import {
  retentionMeta,
  ZDeleteOrgInput,
  ZOrgDeletion,
  ZPutRetentionInput,
  ZRetentionPolicy,
} from './retention.contract';

export const retentionProcedures = {
  get: query({ meta: retentionMeta.get, output: ZRetentionPolicy }),
  put: mutation({ meta: retentionMeta.put, input: ZPutRetentionInput, output: ZRetentionPolicy }),
  deleteOrg: mutation({ meta: retentionMeta.deleteOrg, input: ZDeleteOrgInput, output: ZOrgDeletion }),
  exportMe: query({ meta: privacyMeta.exportMe, output: ZPersonExport }),
  eraseMe: mutation({ meta: privacyMeta.eraseMe, input: ZEraseMeInput, output: ZErasure }),
  exportMember: query({ meta: privacyMeta.exportMember, input: ZMemberRef, output: ZPersonExport }),
  eraseMember: mutation({ meta: privacyMeta.eraseMember, input: ZMemberRef, output: ZErasure }),
};
