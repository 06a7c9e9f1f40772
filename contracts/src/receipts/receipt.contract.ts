import { z } from 'zod';

export const ZReceiptOfItem = z.strictObject({ id: z.uuid() });

export const ZItemReceipt = z
  .object({
    item_id: z.uuid(),
    receipt: z.string().describe('Compact JWS (EdDSA) over the decision'),
    jwks_url: z.string().describe('Where the organization publishes the keys that verify it'),
  })
  .meta({ id: 'ItemReceipt' });

export const ZRotatedKey = z
  .object({ kid: z.string().describe('The new active key; earlier ones stay published') })
  .meta({ id: 'RotatedReceiptKey' });

const tags = ['receipts'];
export const receiptMeta = {
  get: {
    openapi: {
      method: 'GET',
      path: '/items/{id}/receipt',
      protect: true,
      tags,
      summary: 'The signed receipt of the decision on an item (404 while undecided)',
    },
  },
  rotateKey: {
    openapi: {
      method: 'POST',
      path: '/receipts/rotate-key',
      protect: true,
      tags,
      summary: 'Start signing receipts with a new key; receipts signed before still verify',
    },
  },
} as const;
