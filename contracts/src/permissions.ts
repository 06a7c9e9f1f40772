/**
 * The specification's permission matching: a required permission R is granted by R itself,
 * by `prefix.*` when R starts with `prefix.` (dot boundary, nested dots allowed), or by `*`.
 */
export function grants(granted: string, required: string): boolean {
  if (granted === '*' || granted === required) return true;
  if (!granted.endsWith('.*')) return false;
  return required.startsWith(granted.slice(0, -1));
}

export function can(permissions: readonly string[], required: string): boolean {
  return permissions.some((granted) => grants(granted, required));
}

/** What an agent's API key may ever do; its owner's role narrows it further. */
export const AGENT_PERMISSIONS = [
  'items.read',
  'items.write',
  'items.archive',
] as const satisfies readonly Permission[];

export function agentPermissions(ownerPermissions: readonly string[]): string[] {
  return AGENT_PERMISSIONS.filter((p) => can(ownerPermissions, p));
}

/** The permission catalog: the union of the system roles' permissions (the Owner's). */
export const PERMISSION_CATALOG = [
  'org.manage',
  'org.delete',
  'org.billing',
  'users.invite',
  'users.remove',
  'users.change_role',
  'teams.create',
  'teams.delete',
  'teams.manage_members',
  'channels.create',
  'channels.delete',
  'channels.manage',
  'webhooks.manage',
  'items.read',
  'items.write',
  'items.archive',
  'audit.read',
  'agents.manage',
] as const;

/** A permission a procedure may require: one of the catalog (a typo does not compile). */
export type Permission = (typeof PERMISSION_CATALOG)[number];

const isWildcard = (permission: string) => permission === '*' || permission.endsWith('.*');

/**
 * The escalation guard (decisions.md §7): the first permission the caller would need but lacks
 * to hand out `granting`, or null if it may. A wildcard is expanded over the catalog; a
 * permission outside the catalog needs a caller who holds the whole catalog.
 */
export function missingToGrant(caller: readonly string[], granting: readonly string[]): string | null {
  const lacking = (required: readonly string[]) => required.find((p) => !can(caller, p)) ?? null;
  for (const permission of granting) {
    const covered = isWildcard(permission)
      ? PERMISSION_CATALOG.filter((p) => grants(permission, p))
      : PERMISSION_CATALOG.filter((p) => p === permission);
    const missing = lacking(covered.length > 0 ? covered : PERMISSION_CATALOG);
    if (missing) return missing;
  }
  return null;
}
