import http from 'node:http';

/** One API call that reached the fake: its path, form parameters and API key. */
export type PaymentCall = { path: string; params: Record<string, string>; apiKey: string | null };

/**
 * The payment provider faked at the HTTP boundary: a local server answering the three API calls
 * Beckon makes (customers, checkout sessions, portal sessions) as the provider does, so the
 * server's real client library runs; PAYMENT_API_URL points it here. Calls are kept for the
 * tests to inspect. Events are sent by the tests themselves, signed like the provider's.
 */
export async function startFakePayments() {
  const calls: PaymentCall[] = [];
  let counter = 0;
  const next = (prefix: string) => `${prefix}_${++counter}`;
  const answers: Record<string, (params: Record<string, string>) => Record<string, unknown>> = {
    '/v1/customers': (params) => ({ id: next('cus'), object: 'customer', name: params.name ?? null }),
    '/v1/checkout/sessions': (params) => {
      const id = next('cs');
      return {
        id,
        object: 'checkout.session',
        url: `https://pay.example.test/c/${id}`,
        customer: params.customer,
      };
    },
    '/v1/billing_portal/sessions': (params) => {
      const id = next('bps');
      return {
        id,
        object: 'billing_portal.session',
        url: `https://pay.example.test/p/${id}`,
        customer: params.customer,
      };
    },
  };
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      const params = Object.fromEntries(new URLSearchParams(body));
      const auth = request.headers.authorization;
      calls.push({ path, params, apiKey: auth?.startsWith('Bearer ') ? auth.slice(7) : null });
      const answer = answers[path];
      response.setHeader('content-type', 'application/json');
      if (request.method !== 'POST' || !answer) {
        response.statusCode = 404;
        response.end(
          JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }),
        );
        return;
      }
      response.end(JSON.stringify(answer(params)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
