import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Factories, FakeTwilio, HttpClient, TestServer } from '../harness';
import {
  connectTwilio,
  eventually,
  onPlan,
  startTwilioServer,
  textIn,
  verifyPhone,
  WHATSAPP_FROM,
} from './setup';

let server: TestServer;
let twilio: FakeTwilio;
let f: Factories;
let owner: HttpClient;
let orgId: string;
let alice: { id: string; api: HttpClient };
let bob: { id: string; api: HttpClient };
const ALICE = '+15552220001';
const BOB = '+15552220002';

const YES_NO = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };
const CHOICE = {
  id: 'c',
  fields: [
    {
      id: 'size',
      type: 'select',
      label: 'Size',
      required: true,
      options: [
        { value: 's', label: 'Petit' },
        { value: 'l', label: 'Très grand' },
      ],
    },
  ],
};
type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_via: string | null;
};

beforeAll(async () => {
  ({ server, twilio, f } = await startTwilioServer());
  const team = await f.team(server.resource);
  await onPlan(server, team.org.id, 'team');
  owner = team.owner;
  orgId = team.org.id;
  await connectTwilio(owner);
  alice = await team.join('member');
  bob = await team.join('member');
  await verifyPhone(twilio, alice.api, ALICE);
  await verifyPhone(twilio, bob.api, BOB, 'whatsapp');
});
afterAll(async () => {
  await server?.close();
  await twilio?.close();
});

/** Creates an item assigned to `people` and waits for its text to the first one. */
async function texted(title: string, form: object | undefined, people = [alice.id], to = ALICE) {
  const assignees = people.map((id) => ({ type: 'user', id }));
  const created = await owner.post<Item>('/api/items', { title, form, assignees });
  if (created.status !== 201) throw new Error(`${created.status} ${created.text}`);
  const message = await twilio.waitForMessage(to, title);
  return { item: created.body, message, ref: Number(/#(\d+)/.exec(message.body)?.[1]) };
}
const item = async (id: string) => (await owner.get<Item>(`/api/items/${id}`)).body;
const say = (from: string, body: string, options = {}) => textIn(server, orgId, { from, body }, options);

describe('items become texts', () => {
  it('texts an assigned item with a numbered menu, as an sms delivery', async () => {
    const { item: created, message } = await texted('Deploy v2?', YES_NO);
    expect(message.body).toMatch(/^Beckon #\d+: Deploy v2\?\n1 Yes\n2 No\nReply with a number/);
    const deliveries = await eventually(
      async () =>
        (
          await owner.get<{ deliveries: { kind: string; error: string | null }[] }>(
            `/api/deliveries?item_id=${created.id}`,
          )
        ).body.deliveries,
      (list) => list.length > 0,
    );
    expect(deliveries).toEqual([expect.objectContaining({ kind: 'sms', error: null })]);
  });

  it('sends a richer form as a link to its page', async () => {
    const form = { id: 'r', fields: [{ id: 'why', type: 'text', label: 'Why?', required: true }] };
    const { item: created, message } = await texted('Explain the outage', form);
    expect(message.body).toContain(`Answer here: ${server.deps.env.APP_URL}/items/${created.id}`);
  });

  it('records a number Twilio refuses in the delivery log', async () => {
    twilio.failNext(400, 21610, 'Attempt to send to unsubscribed recipient');
    const created = (
      await owner.post<Item>('/api/items', {
        title: 'Refused',
        form: YES_NO,
        assignees: [{ type: 'user', id: alice.id }],
      })
    ).body;
    const [failed] = await eventually(
      async () =>
        (await owner.get<{ deliveries: { error: string | null }[] }>(`/api/deliveries?item_id=${created.id}`))
          .body.deliveries,
      (list) => list.length > 0,
    );
    expect(failed?.error).toBe('21610: Attempt to send to unsubscribed recipient');
  });
});

describe('reminders', () => {
  it('texts an item that repeats until acknowledged again, with the same reference, until acknowledged', async () => {
    const assignees = [{ type: 'user', id: alice.id }];
    const created = await owner.post<Item>('/api/items', {
      title: 'Disk full',
      form: YES_NO,
      assignees,
      repeat_until_ack: { every_minutes: 10 },
    });
    const first = await twilio.waitForMessage(ALICE, 'Disk full');
    const ref = /#(\d+)/.exec(first.body)?.[1];
    const fire = async () => {
      const [job] = await server.database.sql<{ id: string }[]>`
        select id from graphile_worker._private_jobs where key = ${`repeat_item:${created.body.id}`}`;
      expect(job, 'a pending reminder').toBeDefined();
      await server.database
        .sql`update graphile_worker._private_jobs set run_at = now() where id = ${job!.id}`;
    };
    await fire();
    const again = await twilio.waitForMessage(ALICE, 'Reminder: Beckon');
    expect(again.body).toMatch(new RegExp(`^Reminder: Beckon #${ref}: Disk full\n1 Yes\n2 No`));
    await alice.api.post(`/api/items/${created.body.id}/ack`);
    const [pending] = await server.database.sql`
      select 1 from graphile_worker._private_jobs where key = ${`repeat_item:${created.body.id}`}`;
    expect(pending).toBeUndefined();
  });
});

describe('replies', () => {
  it('refuses a bad signature, a tampered body and another account, changing nothing', async () => {
    const { item: created } = await texted('Signed?', YES_NO);
    for (const options of [
      { token: 'not-the-auth-token-of-it' },
      { tamper: true },
      { accountSid: `AC${'2'.repeat(32)}` },
    ]) {
      const res = await say(ALICE, 'yes', options);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text)).toEqual({ error: 'invalid signature', code: 'invalid_signature' });
    }
    expect((await item(created.id)).status).toBe('open');
  });

  it('answers the latest item by number, and a replayed request changes nothing', async () => {
    const { item: created } = await texted('Rotate keys?', YES_NO);
    const res = await say(ALICE, '2', { messageSid: `SM${'a'.repeat(32)}` });
    expect(res.reply).toMatch(/Recorded: No\. Thank you\./);
    expect(await item(created.id)).toMatchObject({
      status: 'answered',
      response: { ok: false },
      answered_via: 'sms',
    });
    const replay = await say(ALICE, '2', { messageSid: `SM${'a'.repeat(32)}` });
    expect(replay).toMatchObject({ status: 200, reply: null });
  });

  it('takes a label with any case and accents, and yes words', async () => {
    const choice = await texted('Which size?', CHOICE);
    expect((await say(ALICE, '  TRES GRAND! ')).reply).toContain('Recorded: Très grand');
    expect((await item(choice.item.id)).response).toEqual({ size: 'l' });
    const yesNo = await texted('Proceed?', YES_NO);
    expect((await say(ALICE, 'Yés')).reply).toContain('Recorded: Yes');
    expect((await item(yesNo.item.id)).response).toEqual({ ok: true });
  });

  it('answers an unclear reply with the menu again', async () => {
    const { item: created, ref } = await texted('Maybe?', YES_NO);
    const res = await say(ALICE, 'perhaps');
    expect(res.reply).toBe(`Beckon #${ref}: Maybe?\nReply with one of:\n1 Yes\n2 No`);
    expect((await say(ALICE, '7')).reply).toContain('Reply with one of');
    expect((await item(created.id)).status).toBe('open');
    await say(ALICE, 'no');
  });

  it('answers an older open item named by its reference', async () => {
    const first = await texted('First?', YES_NO);
    const second = await texted('Second?', YES_NO);
    expect((await say(ALICE, `#${first.ref} yes`)).reply).toContain(`Beckon #${first.ref}: First?`);
    expect((await item(first.item.id)).status).toBe('answered');
    expect((await item(second.item.id)).status).toBe('open');
    expect((await say(ALICE, `${second.ref} 1`)).reply).toContain('Recorded: Yes');
    expect((await say(ALICE, '#9999 yes')).reply).toBe('No Beckon item #9999 was sent to you.');
  });

  it('acknowledges an item without a form', async () => {
    const { item: created, message } = await texted('FYI: disk at 80%', undefined);
    expect(message.body).toContain('1 Acknowledge');
    expect((await say(ALICE, 'ok')).reply).toContain('Recorded: Acknowledge');
    expect(
      (await owner.get<{ acked_at: string | null }>(`/api/items/${created.id}`)).body.acked_at,
    ).not.toBeNull();
  });

  it('tells nothing to a number nobody verified', async () => {
    expect((await say('+15559999999', 'yes')).reply).toContain('not verified');
  });
});

describe('WhatsApp', () => {
  it('texts and takes answers on WhatsApp', async () => {
    const { item: created, message } = await texted('On WhatsApp?', YES_NO, [bob.id], `whatsapp:${BOB}`);
    expect(message.from).toBe(`whatsapp:${WHATSAPP_FROM}`);
    expect((await say(`whatsapp:${BOB}`, '1')).reply).toContain('Recorded: Yes');
    expect(await item(created.id)).toMatchObject({ status: 'answered', answered_via: 'whatsapp' });
  });
});

describe('one answer, every phone told', () => {
  it('tells each other person who answered and where, and later replies that it is closed', async () => {
    const { item: created, ref } = await texted('Both of you?', YES_NO, [alice.id, bob.id]);
    await twilio.waitForMessage(`whatsapp:${BOB}`, 'Both of you?');
    const answered = await owner.post(`/api/items/${created.id}/answer`, { values: { ok: true } });
    expect(answered.status).toBe(200);
    const notice = await twilio.waitForMessage(ALICE, /Both of you\?\nAnswered by .* Yes\./);
    expect(notice.body).toContain(`Beckon #${ref}`);
    await twilio.waitForMessage(`whatsapp:${BOB}`, /Both of you\?\nAnswered by/);
    const late = await say(ALICE, `#${ref} no`);
    expect(late.reply).toMatch(/Answered by .*: Yes\. Your reply changed nothing\./);
    expect((await item(created.id)).response).toEqual({ ok: true });
  });

  it('does not tell the person who answered by text twice', async () => {
    const { item: created } = await texted('Only me?', YES_NO, [alice.id, bob.id]);
    await twilio.waitForMessage(`whatsapp:${BOB}`, 'Only me?');
    await say(ALICE, 'yes');
    await twilio.waitForMessage(`whatsapp:${BOB}`, /Only me\?\nAnswered by .* by SMS: Yes/);
    const toAlice = twilio.to(ALICE).filter((m) => m.body.includes('Only me?'));
    expect(toAlice).toHaveLength(1);
    expect((await item(created.id)).answered_via).toBe('sms');
  });
});

describe("a person's preferences", () => {
  it('leave out texts below their minimum level and in their quiet hours', async () => {
    const hour = new Date().getUTCHours();
    const at = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
    const saved = await bob.api.put('/api/me/preferences', {
      min_level: 'warning',
      quiet_hours_enabled: true,
      quiet_hours_start: at(hour - 1),
      quiet_hours_end: at(hour + 2),
      timezone: 'UTC',
      quiet_hours_allow_levels: 'error',
    });
    expect(saved.status).toBe(200);
    const assignees = [alice.id, bob.id].map((id) => ({ type: 'user', id }));
    for (const [title, level] of [
      ['Below the minimum', 'info'],
      ['In quiet hours', 'warning'],
      ['Urgent enough', 'error'],
    ])
      await owner.post<Item>('/api/items', { title, level, form: YES_NO, assignees });
    await twilio.waitForMessage(`whatsapp:${BOB}`, 'Urgent enough');
    for (const title of ['Below the minimum', 'In quiet hours', 'Urgent enough'])
      await twilio.waitForMessage(ALICE, title);
    await eventually(
      async () =>
        (
          await server.database.sql<{ n: number }[]>`
            select count(*)::int as n from graphile_worker.jobs where task_identifier = 'twilio_send_item'`
        )[0]!.n,
      (n) => n === 0,
    );
    const toBob = twilio.to(`whatsapp:${BOB}`).map((m) => m.body);
    expect(toBob.filter((body) => /Below the minimum|In quiet hours/.test(body))).toEqual([]);
    await bob.api.put('/api/me/preferences', { min_level: 'info', quiet_hours_enabled: false });
  });
});

describe('STOP and START', () => {
  it('stops every text after STOP, until START', async () => {
    expect((await say(ALICE, 'Stop')).reply).toContain('Reply START');
    expect((await alice.api.get('/api/twilio/phone')).body).toMatchObject({ phone: { opted_out: true } });
    const quiet = await owner.post<Item>('/api/items', {
      title: 'While stopped',
      form: YES_NO,
      assignees: [{ type: 'user', id: alice.id }],
    });
    expect(quiet.status).toBe(201);
    expect((await say(ALICE, 'START')).reply).toContain('again');
    await texted('After start', YES_NO);
    expect(twilio.to(ALICE).some((m) => m.body.includes('While stopped'))).toBe(false);
  });
});
