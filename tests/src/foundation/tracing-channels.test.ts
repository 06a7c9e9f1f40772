import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type FakeSlack, startFakeSlack, startTestServer, type TestServer } from '../harness';
import {
  CLIENT,
  CONSUMER,
  type OtlpCollector,
  type OtlpSpan,
  parentIdOf,
  startOtlpCollector,
  traceIdOf,
} from '../harness/otlp';
import { startSmtpServer } from '../harness/smtp';
import { APP, connect, onPlan, SIGNING_SECRET } from '../slack/setup';

/**
 * An item created in a trace reaches Slack and a person's mailbox with that trace's context
 * (docs/architecture.md, "Tracing"): the Slack API call carries `traceparent`, and so does the
 * mail, in a header; both are the spans of the jobs that send them.
 */
let collector: OtlpCollector;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let slack: FakeSlack;
let server: TestServer;

beforeAll(async () => {
  collector = await startOtlpCollector();
  [smtp, slack] = await Promise.all([startSmtpServer(), startFakeSlack(APP)]);
  server = await startTestServer({
    worker: true,
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SLACK_CLIENT_ID: APP.clientId,
      SLACK_CLIENT_SECRET: APP.clientSecret,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_TOKEN_KEY: 'a-test-key-for-slack-bot-tokens-at-rest',
      SLACK_API_URL: slack.url,
    },
  });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([smtp?.close(), slack?.close()]);
  await collector?.close();
});

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };

/** The span `traceparent` names as its parent, and the job span above it, once exported. */
async function sentBy(traceparent: string) {
  const spanId = parentIdOf(traceparent);
  const spans = await collector.spansOf(traceIdOf(traceparent), (all) =>
    all.some((span) => span.spanId === spanId && all.some((job) => job.spanId === span.parentSpanId)),
  );
  const sent = spans.find((span) => span.spanId === spanId);
  const job = spans.find((span) => span.spanId === sent?.parentSpanId);
  return { sent, job } as { sent: OtlpSpan; job: OtlpSpan };
}

describe('trace context carried to chat apps and mail', () => {
  it('sends the creating trace with the Slack message of an item', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    await onPlan(server, team.org.id, 'team');
    await connect(server, slack, team.owner, { id: 'TTRACE', name: 'Traced', channels: { COPS: 'ops' } });
    const channel = await team.owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' });
    await team.owner.put(`/api/slack/routes/${channel.body.id}`, { slack_channel_id: 'COPS' });

    const traceId = '3a5c7e9b1d3f5a7c9e2b4d6f8a0c2e4b';
    const created = await team.owner.post<{ id: string }>(
      '/api/items',
      { title: 'Deploy v3?', channel_id: channel.body.id, form: FORM },
      { headers: { traceparent: `00-${traceId}-7c9e2b4d6f8a0c2e-01` } },
    );
    expect(created.status).toBe(201);
    const message = await slack.waitForMention('chat.postMessage', created.body.id);
    expect(traceIdOf(message.traceparent)).toBe(traceId);
    const { sent, job } = await sentBy(message.traceparent ?? '');
    expect(sent).toMatchObject({ kind: CLIENT, name: 'POST' });
    expect(job).toMatchObject({ kind: CONSUMER, name: expect.stringMatching(/^job /) });
  });

  it('writes the creating trace in a header of the mail to the assignee', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const alice = await team.join('member');
    const [user] = await server.database.sql<{ email: string }[]>`
      select email from users where id = ${alice.id}`;
    expect((await alice.api.put('/api/me/email', { enabled: true })).status).toBe(200);

    const traceId = '8e0a2c4e6b8d0f2a4c6e8b0d2f4a6c8e';
    const created = await team.owner.post<{ id: string }>(
      '/api/items',
      { title: 'Renew the certificate', assignees: [{ type: 'user', id: alice.id }] },
      { headers: { traceparent: `00-${traceId}-2c4e6b8d0f2a4c6e-01` } },
    );
    expect(created.status).toBe(201);
    const mail = await smtp.waitForMail(user!.email);
    const header = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n'));
    const traceparent = /^traceparent: (.+)$/im.exec(header)?.[1]?.trim() ?? '';
    expect(traceIdOf(traceparent)).toBe(traceId);
    const { sent, job } = await sentBy(traceparent);
    expect(sent).toMatchObject({ kind: CLIENT, name: 'smtp send' });
    expect(job).toMatchObject({ kind: CONSUMER, name: 'job send_email' });
  });
});
