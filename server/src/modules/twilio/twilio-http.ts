import type { FastifyInstance } from 'fastify';
import twilio from 'twilio';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { orgTwilio } from './connection.service';
import { handleInbound } from './inbound';
import { requireTwilio } from './twilio-config';

/** Twilio's incoming-message requests are small (a text of at most 1,600 characters and its fields). */
const MAX_INBOUND_BYTES = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const refused = () => AppError.of('invalid_signature', 'invalid signature');

/** The TwiML answer: a reply message, or none. */
function twiml(text: string | null): string {
  const response = new twilio.twiml.MessagingResponse();
  if (text) response.message(text);
  return response.toString();
}

/**
 * Twilio's public route (503 without Twilio configuration): POST
 * /webhooks/twilio/:org_id/messages, the messages people send to the organization's numbers
 * (the URL each number's incoming-message webhook names). Its `X-Twilio-Signature` is checked
 * with the organization's auth token over the URL as Twilio called it (RESOURCE_URL and the path)
 * and the form fields (`twilio.validateRequest`); a request that fails it, or names another
 * account, is a 401 and changes nothing. Twilio signs no timestamp: a replay is refused by its
 * MessageSid, handled once (a second delivery of the same message is answered with no reply and
 * changes nothing). The answer is TwiML: the reply text, if any.
 */
export function registerTwilioWebhooks(app: FastifyInstance, deps: Deps): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: MAX_INBOUND_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post('/webhooks/twilio/:org_id/messages', async (request, reply) => {
      const config = requireTwilio(deps);
      const { org_id: orgId } = request.params as { org_id: string };
      const account = UUID.test(orgId) ? await orgTwilio(deps, config, orgId) : null;
      if (!account) throw refused();
      const raw = typeof request.body === 'string' ? request.body : '';
      const params = Object.fromEntries(new URLSearchParams(raw));
      const signature = request.headers['x-twilio-signature'];
      const url = `${deps.env.RESOURCE_URL}${request.url}`;
      if (typeof signature !== 'string' || !twilio.validateRequest(account.authToken, signature, url, params))
        throw refused();
      if (params.AccountSid !== account.connection.account_sid || !params.MessageSid || !params.From)
        throw refused();
      const first = await deps.sql`
        insert into twilio_inbound (message_sid, org_id) values (${params.MessageSid}, ${orgId})
        on conflict do nothing returning message_sid`;
      const text =
        first.length === 0
          ? null
          : await handleInbound(deps, orgId, { from: params.From, body: params.Body ?? '' });
      return reply.type('text/xml').send(twiml(text));
    });
  });
}
