import type { Catalog, Sql } from '@beckon/db';

const SYSTEM_SCHEMAS = ['pg_catalog', 'information_schema'];

/** The tables, unique indexes and foreign keys of every schema (or of `schemas`), from pg_catalog. */
export async function readCatalog(sql: Sql, schemas?: string[]): Promise<Catalog> {
  const filter = schemas
    ? sql`n.nspname = any(${schemas})`
    : sql`n.nspname <> all(${SYSTEM_SCHEMAS}) and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`;
  // `schema.table`, or the bare name in public, as db/src/distribution.ts names tables
  const tables = await sql<{ oid: string; table: string }[]>`
    select c.oid::text as oid,
      case when n.nspname = 'public' then c.relname::text else n.nspname || '.' || c.relname end as table
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and not c.relispartition and ${filter}`;
  const oids = tables.map(({ oid }) => oid);
  const nameOf = new Map(tables.map(({ oid, table }) => [oid, table]));
  const columns = await sql<{ oid: string; name: string; notNull: boolean }[]>`
    select attrelid::text as oid, attname as name, attnotnull as "notNull" from pg_attribute
    where attrelid = any(${oids}::oid[]) and attnum > 0 and not attisdropped order by attnum`;
  const indexes = await sql<{ oid: string; name: string; primary: boolean; columns: (string | null)[] }[]>`
    select i.indrelid::text as oid, c.relname as name, i.indisprimary as primary,
      array(select a.attname from unnest(i.indkey::int2[]) with ordinality as k(attnum, at)
            left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
            where k.at <= i.indnkeyatts order by k.at) as columns
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indisunique and i.indrelid = any(${oids}::oid[])`;
  const keys = await sql<
    { oid: string; name: string; to: string; columns: string[]; referenced: string[] }[]
  >`
    select k.conrelid::text as oid, k.conname as name, k.confrelid::text as to,
      array(select a.attname from unnest(k.conkey) with ordinality as x(attnum, at)
            join pg_attribute a on a.attrelid = k.conrelid and a.attnum = x.attnum order by x.at) as columns,
      array(select a.attname from unnest(k.confkey) with ordinality as x(attnum, at)
            join pg_attribute a on a.attrelid = k.confrelid and a.attnum = x.attnum order by x.at) as referenced
    from pg_constraint k where k.contype = 'f' and k.conrelid = any(${oids}::oid[])`;
  const named = (oid: string) => nameOf.get(oid) ?? `(outside the schemas read: ${oid})`;
  return {
    tables: tables.map(({ oid, table }) => ({
      table,
      columns: columns.filter((column) => column.oid === oid).map(({ name, notNull }) => ({ name, notNull })),
    })),
    uniqueIndexes: indexes.map(({ oid, name, primary, columns }) => ({
      table: named(oid),
      name,
      primary,
      columns,
    })),
    foreignKeys: keys.map(({ oid, name, to, columns, referenced }) => ({
      table: named(oid),
      name,
      columns,
      references: named(to),
      referencedColumns: referenced,
    })),
  };
}
