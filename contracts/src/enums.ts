/**
 * The closed sets of values that are both stored (db/src/schema: text columns with these enums)
 * and sent on the wire (the zod contracts).
 */
export const itemStatuses = ['open', 'answered', 'dismissed', 'archived', 'expired', 'withdrawn'] as const;
export const itemLevels = ['info', 'warning', 'error', 'success'] as const;
/** `policy`: an item's timeout policy decided at its deadline (answered or dismissed it). */
export const actorTypes = ['user', 'agent', 'system', 'policy'] as const;
/** Where an answer can come from besides the API and the dashboard: its source (items.answered_via). */
/** `mcp`: the requester answered in their MCP client (form elicitation, protocol 2026-07-28). */
export const answerSources = [
  'email',
  'slack',
  'push',
  'mcp',
  'telegram',
  'discord',
  'teams',
  'sms',
  'whatsapp',
] as const;
/** Where an answer came from, as the closing notices of every channel and the timeline say it. */
export const answerSourceWords: Record<(typeof answerSources)[number], string> = {
  email: 'by email',
  slack: 'in Slack',
  push: 'from a notification',
  mcp: 'in their AI assistant',
  telegram: 'in Telegram',
  discord: 'in Discord',
  teams: 'in Microsoft Teams',
  sms: 'by SMS',
  whatsapp: 'on WhatsApp',
};
/** What an outbound delivery attempt was for (delivery_attempts.kind). */
export const deliveryKinds = [
  'callback',
  'webhook',
  'email',
  'slack',
  'telegram',
  'discord',
  'teams',
  'sms',
  'whatsapp',
] as const;
/**
 * The apps that reach a person directly (their direct messages, their phone): each person may
 * mute any of them (notification_preferences.muted_apps) without unlinking it.
 */
export const personalApps = ['slack', 'telegram', 'discord', 'teams', 'sms', 'whatsapp'] as const;
/** How a person's phone gets items through Twilio (phone_numbers.channel). */
export const phoneChannels = ['sms', 'whatsapp'] as const;
/** How often a person's email digest goes out. */
export const emailDigestPeriods = ['off', 'hourly', 'daily'] as const;
