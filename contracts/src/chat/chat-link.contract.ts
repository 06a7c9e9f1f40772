import { z } from 'zod';

/** A one-time code linking the person's account of a chat app (Telegram, Discord, Teams) to them. */
export const ZChatLinkCode = z
  .object({
    code: z.string().describe('Good once, for 15 minutes; a newer code of the same person replaces it'),
    url: z
      .string()
      .nullable()
      .describe("Telegram: the bot's deep link (t.me/<bot>?start=<code>); null for Discord and Teams"),
    instructions: z.string().describe('What the person does with the code in the app'),
    expires_at: z.string(),
  })
  .meta({ id: 'ChatLinkCode' });
export type ChatLinkCodeView = z.infer<typeof ZChatLinkCode>;

/** Whether the person's account of the app is linked in the organization. */
export const ZChatLinkStatus = z
  .object({ linked: z.boolean(), linked_at: z.string().nullable() })
  .meta({ id: 'ChatLinkStatus' });
