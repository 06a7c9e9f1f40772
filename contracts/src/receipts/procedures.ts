import { mutation, query } from '../procedure';
import { receiptMeta, ZItemReceipt, ZReceiptOfItem, ZRotatedKey } from './receipt.contract';

export const receiptProcedures = {
  get: query({ meta: receiptMeta.get, input: ZReceiptOfItem, output: ZItemReceipt }),
  rotateKey: mutation({ meta: receiptMeta.rotateKey, output: ZRotatedKey }),
};
