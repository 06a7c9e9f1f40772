import { z } from 'zod';
import { actorTypes } from '../enums';
import { LIMITS } from './item.contract';

const ZActorType = z.enum(actorTypes);

export const ZComment = z
  .object({
    id: z.uuid(),
    item_id: z.uuid(),
    body: z.string(),
    actor_type: ZActorType,
    actor_id: z.uuid().nullable(),
    actor_name: z
      .string()
      .nullable()
      .describe(
        "The actor's display name (a person's name, else email; an agent's name); null for the system",
      ),
    created_at: z.string(),
  })
  .meta({ id: 'Comment' });

export const ZAddCommentInput = z.strictObject({
  id: z.uuid(),
  body: z.string().trim().min(1).max(LIMITS.comment),
});

export const ZTimelineEntry = z
  .object({
    id: z.uuid(),
    entry_type: z.enum(['event', 'comment']),
    action: z.string().nullable(),
    body: z.string().nullable(),
    actor_type: ZActorType,
    actor_id: z.uuid().nullable(),
    actor_name: z
      .string()
      .nullable()
      .describe(
        "The actor's display name (a person's name, else email; an agent's name); null for the system",
      ),
    data: z.record(z.string(), z.unknown()).nullable(),
    names: z
      .record(z.string(), z.string())
      .describe(
        'Display names of the people its data refers to by id: those a delegate acted for (on_behalf_of), those away and the delegates notified in their place (delegated)',
      ),
    created_at: z.string(),
  })
  .meta({ id: 'TimelineEntry' });

const tags = ['comments'];
export const commentMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/items/{id}/comments',
      protect: true,
      tags,
      summary: 'Comments, oldest first',
    },
  },
  add: {
    status: 201,
    openapi: { method: 'POST', path: '/items/{id}/comments', protect: true, tags, summary: 'Add a comment' },
  },
  timeline: {
    openapi: {
      method: 'GET',
      path: '/items/{id}/timeline',
      protect: true,
      tags,
      summary: 'Audit events and comments merged, oldest first',
    },
  },
} as const;
