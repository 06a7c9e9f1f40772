import { z } from 'zod';
import { actorTypes } from '../enums';
import { ZPageLimit } from '../paging';

export const ZAuditEntry = z
  .object({
    id: z.uuid(),
    item_id: z
      .uuid()
      .nullable()
      .describe('Null for organization-level changes (channels, templates, settings)'),
    action: z.string(),
    actor_type: z.enum(actorTypes),
    actor_id: z.uuid().nullable(),
    data: z.record(z.string(), z.unknown()),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntryView = z.infer<typeof ZAuditEntry>;

export const ZListAuditInput = z.strictObject({
  limit: ZPageLimit,
  cursor: z.string().max(200).optional(),
  item_id: z.uuid().optional(),
});
export type ListAuditInput = z.infer<typeof ZListAuditInput>;

export const ZAuditPage = z.object({ entries: z.array(ZAuditEntry), next_cursor: z.string().nullable() });

const ZChainPoint = z.object({ seq: z.number().int(), hash: z.string() });

export const ZAuditVerdict = z
  .object({
    valid: z.boolean().describe('True when every link from the anchor to the head holds'),
    entries: z.number().int().describe('Entries checked before the first broken link'),
    anchor: ZChainPoint.describe(
      'Where the chain starts: seq 0 and 64 zeros, or the last entry removed by the retention period',
    ),
    last: ZChainPoint.describe('The last entry whose link holds'),
    head: ZChainPoint.nullable().describe(
      'The organization’s head when the walk began; null before any entry',
    ),
    broken: z
      .object({
        seq: z.number().int(),
        id: z.uuid().nullable().describe('Null when the entry at seq is missing'),
        reason: z.enum(['missing', 'prev_hash', 'hash', 'head']),
      })
      .nullable()
      .describe('The first broken link'),
  })
  .meta({ id: 'AuditVerdict' });
export type AuditVerdict = z.infer<typeof ZAuditVerdict>;

export const ZAuditCheckpoint = z
  .object({
    checkpoint: z
      .string()
      .describe(
        'Compact JWS (EdDSA, typ beckon-audit-checkpoint+jwt) over {iss, iat, org_id, seq, hash, anchor_seq, anchor_hash}',
      ),
    seq: z.number().int(),
    hash: z.string(),
    jwks_url: z.string(),
  })
  .meta({ id: 'AuditCheckpoint' });
export type AuditCheckpoint = z.infer<typeof ZAuditCheckpoint>;

const tags = ['audit'];
export const auditMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/audit',
      protect: true,
      tags,
      summary: 'Audit entries, newest first (cursor-paginated)',
    },
  },
  checkpoint: {
    openapi: {
      method: 'POST',
      path: '/audit/checkpoint',
      protect: true,
      tags,
      summary:
        'Verify the audit chain, then sign its head with the organization’s receipt key (409 when broken)',
    },
  },
  verify: {
    openapi: {
      method: 'GET',
      path: '/audit/verify',
      protect: true,
      tags,
      summary: 'Walk the organization’s audit chain and name the first broken link',
    },
  },
} as const;
