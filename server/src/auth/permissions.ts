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
export const AGENT_PERMISSIONS = ['items.read', 'items.write', 'items.archive'] as const;

export function agentPermissions(ownerPermissions: readonly string[]): string[] {
  return AGENT_PERMISSIONS.filter((p) => can(ownerPermissions, p));
}
