import { EVENT_KINDS } from '@beckon/contracts/items/event-kinds';
import { z } from 'zod';

/** What one delivery sends, frozen when it is first attempted, and which attempt this is. */
export const ZDeliveryJob = z.object({
  delivery_id: z.uuid(),
  org_id: z.uuid(),
  item_id: z.uuid().nullable(),
  event: z.enum(EVENT_KINDS),
  url: z.string(),
  /** The exact bytes sent and signed: every attempt sends the same. */
  body: z.string(),
  attempt: z.number().int().min(1),
  /** The trace context of the request that caused the delivery, sent as `traceparent`/`tracestate`. */
  trace: z.object({ traceparent: z.string(), tracestate: z.string().optional() }).optional(),
});
export type DeliveryJob = z.infer<typeof ZDeliveryJob>;

/** The payload of `deliver_callback`, enqueued with an item's change (record-change.ts). */
export const ZCallbackJob = ZDeliveryJob.extend({ item_id: ZDeliveryJob.shape.item_id.unwrap() });
export type CallbackJob = z.infer<typeof ZCallbackJob>;
