import type { Layer } from '@beckon/contracts/schedules/schedules.contract';
import { sql } from 'drizzle-orm';
import {
  check,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, timestamps, ts } from './columns';
import { organizations, users } from './orgs';

/** On-call schedules: layers of people taking turns in a time zone (contracts/src/schedules). */
export const schedules = pgTable(
  'schedules',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    timeZone: text('time_zone').notNull(),
    layers: jsonb('layers').$type<Layer[]>().notNull(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'schedules_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('schedules_org_name_key').on(t.orgId, t.name),
  ],
);

/** A person on call for a period, over a schedule's layers. */
export const scheduleOverrides = pgTable(
  'schedule_overrides',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    scheduleId: uuid('schedule_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    startsAt: ts('starts_at').notNull(),
    endsAt: ts('ends_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'schedule_overrides_pkey', columns: [t.orgId, t.id] }),
    foreignKey({
      name: 'schedule_overrides_schedule_fk',
      columns: [t.orgId, t.scheduleId],
      foreignColumns: [schedules.orgId, schedules.id],
    }).onDelete('cascade'),
    index('schedule_overrides_schedule_idx').on(t.scheduleId, t.startsAt),
    check('schedule_overrides_period_check', sql`${t.endsAt} > ${t.startsAt}`),
  ],
);
