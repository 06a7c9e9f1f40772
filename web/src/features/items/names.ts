/** Who did something, as the API names it (`names` of an item, `actor_name` of an entry). */
type Actor = { type: string; id?: string | null };

/**
 * "Ada Lovelace", "agent deploy-bot", "team On-call", "the timeout policy": a person by their
 * name (the API falls back to their email), anything else by its kind and name. An id the API
 * could not name (a deleted agent or team) says so rather than showing the id.
 */
export function actorLabel(actor: Actor | null, name: string | null | undefined): string {
  if (!actor) return '—';
  switch (actor.type) {
    case 'policy':
      return 'the timeout policy';
    case 'system':
      return 'the system';
    case 'agent':
      return name ? `agent ${name}` : 'a deleted agent';
    case 'team':
      return name ? `team ${name}` : 'a deleted team';
    case 'schedule':
      return name ? `on call on ${name}` : 'a deleted schedule';
    default:
      return name ?? 'a former member';
  }
}

/** The label of an actor an item refers to, named from the item's `names`. */
export const namedIn = (names: Record<string, string>, actor: Actor | null) =>
  actorLabel(actor, actor?.id ? names[actor.id] : null);

/** The same label opening a sentence: "Agent deploy-bot created the item" (a name stays as it is). */
export const sentenceStart = (label: string) =>
  /^(agent|team|the|a) /.test(label) ? label.charAt(0).toUpperCase() + label.slice(1) : label;
