import { createHmac } from 'node:crypto';
import http from 'node:http';

/** One message sent through the fake: the account, and the form fields as Twilio receives them. */
export type TwilioMessage = { account: string; from: string; to: string; body: string; sid: string };

/**
 * Twilio's REST API faked at the HTTP boundary: a local server answering what Beckon calls
 * (GET /2010-04-01/Accounts/{sid}.json, POST /2010-04-01/Accounts/{sid}/Messages.json) as Twilio
 * does, with HTTP Basic authentication by account SID and auth token, so the server's real
 * `twilio` client runs against it (TWILIO_API_URL). Sent messages are kept for the tests.
 */
export async function startFakeTwilio() {
  const accounts = new Map<string, string>();
  const messages: TwilioMessage[] = [];
  const failures: { status: number; code: number; message: string }[] = [];
  const waiters: (() => void)[] = [];
  let counter = 0;

  const json = (res: http.ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const refuse = (res: http.ServerResponse, status: number, code: number, message: string) =>
    json(res, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const match = /^\/2010-04-01\/Accounts\/(AC[0-9a-f]{32})(\.json|\/Messages\.json)$/.exec(req.url ?? '');
      const [user, password] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
        .toString()
        .split(':');
      const sid = match?.[1];
      if (!match || !sid) return refuse(res, 404, 20404, 'The requested resource was not found');
      if (user !== sid || !password || accounts.get(sid) !== password)
        return refuse(res, 401, 20003, 'Authenticate');
      if (match[2] === '.json' && req.method === 'GET')
        return json(res, 200, { sid, friendly_name: 'Beckon test account', status: 'active' });
      if (req.method !== 'POST') return refuse(res, 405, 20004, 'Method not allowed');
      const failure = failures.shift();
      if (failure) return refuse(res, failure.status, failure.code, failure.message);
      const form = new URLSearchParams(Buffer.concat(chunks).toString());
      const message = {
        account: sid,
        from: form.get('From') ?? '',
        to: form.get('To') ?? '',
        body: form.get('Body') ?? '',
        sid: `SM${String(++counter).padStart(32, '0')}`,
      };
      messages.push(message);
      for (const wake of waiters.splice(0)) wake();
      json(res, 201, {
        ...message,
        account_sid: sid,
        status: 'queued',
        num_segments: '1',
        direction: 'outbound-api',
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');

  /** Waits for a message sent to `to` whose body matches, after the `skip` first such ones. */
  async function waitForMessage(
    to: string,
    body: RegExp | string,
    timeoutMs = 20_000,
  ): Promise<TwilioMessage> {
    const deadline = Date.now() + timeoutMs;
    const matches = (m: TwilioMessage) =>
      m.to === to && (typeof body === 'string' ? m.body.includes(body) : body.test(m.body));
    for (;;) {
      const found = messages.find(matches);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no message to ${to} matching ${body}: ${JSON.stringify(messages.map((m) => m.body))}`,
        );
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  return {
    url: `http://127.0.0.1:${address.port}`,
    messages,
    /** An account the fake knows, with its auth token. */
    account(sid: string, authToken: string) {
      accounts.set(sid, authToken);
    },
    /** The next message send is refused with this status and Twilio error code. */
    failNext(status: number, code: number, message: string) {
      failures.push({ status, code, message });
    },
    waitForMessage,
    to: (to: string) => messages.filter((m) => m.to === to),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type FakeTwilio = Awaited<ReturnType<typeof startFakeTwilio>>;

/**
 * `X-Twilio-Signature` as Twilio computes it (its "Webhooks security" page): base64 of
 * HMAC-SHA1, keyed with the account's auth token, over the full URL followed by each form
 * field's name and value, the names sorted.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((text, key) => text + key + params[key], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64');
}
