import { createClient } from '@beckon/sdk';
import type { HttpClient } from './http';
import type { receiverPool } from './receiver';
import { openEventStream } from './sse';

/**
 * Every place an item's outcome reaches the agent behind `agentToken`: a callback receiver (pass
 * its url as `callback_url`), a webhook of the organization subscribed to `item.answered`, the
 * agent's event stream (`/mcp/sse`), and an SDK client to ask with and wait on.
 */
export async function watchOutcomes(
  resourceUrl: string,
  receivers: ReturnType<typeof receiverPool>,
  person: HttpClient,
  agentToken: string,
) {
  const callback = await receivers.start();
  const webhook = await receivers.start();
  const subscribed = await person.post('/api/webhooks', {
    name: 'w',
    url: webhook.url,
    events: ['item.answered'],
  });
  if (subscribed.status !== 201) throw new Error(`webhook: ${subscribed.status} ${subscribed.text}`);
  const stream = await openEventStream(`${resourceUrl}/mcp/sse`, { authorization: `Bearer ${agentToken}` });
  const agent = createClient({ baseUrl: resourceUrl, token: agentToken });
  return { callback, webhook, stream, agent };
}
