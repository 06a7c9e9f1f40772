import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeSlack,
  type FakeTwilio,
  type HttpClient,
  startFakeSlack,
  type TestServer,
} from '../harness';
import { APP, buttons, click, connect, interact, SIGNING_SECRET } from '../slack/setup';
import { connectTwilio, onPlan, startTwilioServer, textIn, verifyPhone } from './setup';

let server: TestServer;
let slack: FakeSlack;
let twilio: FakeTwilio;
let owner: HttpClient;
let orgId: string;
let opsId: string;
let bob: { id: string; api: HttpClient };
const BOB = '+15553330001';
const TEAM = { id: 'TCROSS', name: 'Cross', channels: { COPS: 'ops' }, users: { UALICE: 'alice' } };
const YES_NO = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };
type Item = { id: string; status: string; answered_via: string | null };

beforeAll(async () => {
  slack = await startFakeSlack(APP);
  let f: Awaited<ReturnType<typeof startTwilioServer>>['f'];
  ({ server, twilio, f } = await startTwilioServer({
    SLACK_CLIENT_ID: APP.clientId,
    SLACK_CLIENT_SECRET: APP.clientSecret,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_TOKEN_KEY: 'a-test-key-for-slack-bot-tokens-at-rest',
    SLACK_API_URL: slack.url,
  }));
  const team = await f.team(server.resource);
  await onPlan(server, team.org.id, 'team');
  owner = team.owner;
  orgId = team.org.id;
  await connect(server, slack, owner, TEAM);
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body.id;
  await owner.put(`/api/slack/routes/${opsId}`, { slack_channel_id: 'COPS' });
  await server.database.sql`
    insert into slack_user_links (org_id, slack_user_id, user_id) values (${orgId}, 'UALICE', ${team.user.id})`;
  await connectTwilio(owner);
  bob = await team.join('member');
  await verifyPhone(twilio, bob.api, BOB);
});
afterAll(async () => {
  await server?.close();
  await slack?.close();
  await twilio?.close();
});

/** An item of the Slack-routed channel assigned to Bob: posted to #ops and texted to him. */
async function everywhere(title: string) {
  const assignees = [{ type: 'user', id: bob.id }];
  const item = (await owner.post<Item>('/api/items', { title, channel_id: opsId, form: YES_NO, assignees }))
    .body;
  const post = await slack.waitForMention('chat.postMessage', item.id);
  await twilio.waitForMessage(BOB, title);
  return { item, buttons: buttons(post.params.blocks) };
}

describe('one answer across Slack and SMS', () => {
  it('answered by SMS: the Slack message is updated and loses its buttons', async () => {
    const { item } = await everywhere('Answer by text?');
    expect((await textIn(server, orgId, { from: BOB, body: 'yes' })).reply).toContain('Recorded: Yes');
    const update = await slack.waitForMention('chat.update', item.id);
    expect(update.params.channel).toBe('COPS');
    expect(Object.keys(buttons(update.params.blocks))).not.toContain('Yes');
    expect((await owner.get<Item>(`/api/items/${item.id}`)).body.answered_via).toBe('sms');
  });

  it('answered in Slack: the texted person is told who answered and where', async () => {
    const { item, buttons: found } = await everywhere('Answer in Slack?');
    const clicked = await interact(server, click(TEAM.id, 'UALICE', 'COPS', found.Yes!));
    expect(clicked.status).toBe(200);
    const notice = await twilio.waitForMessage(BOB, /Answer in Slack\?\nAnswered by .* in Slack: Yes\./);
    expect(notice.body).toMatch(/^Beckon #\d+: Answer in Slack\?/);
    expect((await owner.get<Item>(`/api/items/${item.id}`)).body.answered_via).toBe('slack');
    const late = await textIn(server, orgId, { from: BOB, body: 'no' });
    expect(late.reply).toContain('Your reply changed nothing.');
  });
});
