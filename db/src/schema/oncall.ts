import { sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, orgRowId, timestamps, ts } from './columns';
import { organizations, users } from './orgs';

/** A target of an escalation level as stored (contracts/src/schedules/escalation-policies.contract.ts). */
export type StoredPolicyTarget = { type: 'user' | 'team' | 'schedule'; id: string };
/** A level of an escalation policy as stored. */
export type StoredPolicyLevel = { targets: StoredPolicyTarget[]; delay_minutes: number };
/** A weekly window of a person's working hours as stored. */
export type StoredWorkingWindow = { days: string[]; from: string; to: string };

/**
 * Named escalation policies: ordered levels of targets, each given `delay_minutes` before the
 * next, the whole run repeated `repeats` more times. Items copy them as steps when created.
 */
export const escalationPolicies = pgTable(
  'escalation_policies',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    levels: jsonb('levels').$type<StoredPolicyLevel[]>().notNull(),
    repeats: integer('repeats').notNull().default(0),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ name: 'escalation_policies_pkey', columns: [t.orgId, t.id] }),
    uniqueIndex('escalation_policies_org_name_key').on(t.orgId, t.name),
  ],
);

/** A person's working hours in an organization (none: always available). */
export const workingHours = pgTable(
  'working_hours',
  {
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    timeZone: text('time_zone').notNull(),
    windows: jsonb('windows').$type<StoredWorkingWindow[]>().notNull(),
    ...timestamps(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] })],
);

/** A period a person is away, with who receives and may answer in their place. */
export const outOfOffice = pgTable(
  'out_of_office',
  {
    id: orgRowId(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    delegateId: uuid('delegate_id').references(() => users.id, { onDelete: 'set null' }),
    startsAt: ts('starts_at').notNull(),
    endsAt: ts('ends_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'out_of_office_pkey', columns: [t.orgId, t.id] }),
    index('out_of_office_user_idx').on(t.orgId, t.userId, t.startsAt),
    check('out_of_office_period_check', sql`${t.endsAt} > ${t.startsAt}`),
  ],
);
