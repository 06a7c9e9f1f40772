-- The primary key (org_id, id) serves what this index did: one index less to write per entry.
DROP INDEX "audit_entries_org_idx";