import { pruneExpired } from '@beckon/server/jobs/prune-expired';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories } from '../harness';
import { readMail } from './mail';
import { follow, type Item, startMailingServer } from './setup';

let env: Awaited<ReturnType<typeof startMailingServer>>;

beforeAll(async () => {
  env = await startMailingServer();
});
afterAll(async () => {
  await env?.close();
});

const HOUR = 3600 * 1000;
const yesNo = { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Deploy?', yes_label: 'Ship it' }] };

async function mailedItem(body: Record<string, unknown>) {
  const team = await env.team();
  const alice = await team.person();
  const item = await env.ask(team.agent, body);
  const mail = await readMail(await env.smtp.waitForMail(alice.email));
  const current = async () => (await alice.api.get<Item>(`/api/items/${item.id}`)).body;
  return { team, alice, item, mail, current };
}

describe('answering from a mail', () => {
  it('a yes/no item: GET shows the choice and answers nothing; POST answers once as the person', async () => {
    const { alice, item, mail, current } = await mailedItem({
      title: 'Deploy?',
      message: 'The canary is **green**. <script>x()</script>',
      form: yesNo,
    });
    expect(mail.answerLinks.map((l) => l.label)).toEqual(['Ship it', 'No']);
    const yes = mail.button('Ship it');

    // A mail scanner (or the person) opening the link: a confirmation page, nothing answered.
    const page = await follow(yes);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('Confirm: Ship it');
    expect(page.text).toContain('The canary is <strong>green</strong>. &lt;script&gt;x()&lt;/script&gt;');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.text).toContain('<form method="post"');
    expect((await follow(yes)).status).toBe(200);
    expect((await current()).status).toBe('open');

    const answered = await follow(yes, 'POST');
    expect(answered.status).toBe(200);
    expect(answered.text).toContain('Answer recorded');
    const after = await current();
    expect(after).toMatchObject({
      status: 'answered',
      response: { ok: true },
      answered_by: { type: 'user', id: alice.id },
      answered_via: 'email',
    });
    const timeline = await alice.api.get<
      { action: string; actor_id: string; data: Record<string, unknown> }[]
    >(`/api/items/${item.id}/timeline`);
    expect(timeline.body.find((e) => e.action === 'item.answer')).toMatchObject({
      actor_id: alice.id,
      data: { answered_via: 'email' },
    });

    // Every link of that mail is spent: the same button, the other one, and a GET of either.
    const again = await follow(yes, 'POST');
    expect(again.status).toBe(410);
    expect(again.text).toContain('already used');
    expect((await follow(mail.button('No'), 'POST')).status).toBe(410);
    expect((await follow(yes)).status).toBe(410);
    expect((await current()).response).toEqual({ ok: true });
  });

  it('sends an item that needs a fresh verification with a link to its page, and no answer button', async () => {
    const { mail, current } = await mailedItem({
      title: 'Wire 40,000 EUR?',
      form: yesNo,
      require_reauth: { method: 'any' },
    });
    expect(mail.answerLinks).toEqual([]);
    expect(mail.links.map((l) => l.url)).toContain(`https://app.beckon.test/items/${(await current()).id}`);
    expect((await current()).status).toBe('open');
  });

  it('refuses an expired link, a tampered one, and a link to an item decided elsewhere', async () => {
    const { alice, item, mail, current } = await mailedItem({ title: 'Expiring', form: yesNo });
    const yes = mail.button('Ship it');
    env.clock.advance(49 * HOUR);
    try {
      const expired = await follow(yes, 'POST');
      expect(expired.status).toBe(410);
      expect(expired.text).toContain('expired');
      expect((await follow(yes)).status).toBe(410);
    } finally {
      env.clock.advance(-49 * HOUR);
    }
    expect((await current()).status).toBe('open');

    const url = new URL(yes);
    const [payload, signature] = (url.searchParams.get('token') ?? '').split('.');
    const claim = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claim, c: 1 })).toString('base64url');
    url.searchParams.set('token', `${forged}.${signature}`);
    expect((await follow(url.href, 'POST')).status).toBe(400);
    expect((await follow(`${url.origin}${url.pathname}`, 'POST')).status).toBe(400);
    expect((await current()).status).toBe('open');

    // Answered in the dashboard meanwhile: the mail's link says so and changes nothing.
    expect((await alice.api.post(`/api/items/${item.id}/answer`, { values: { ok: false } })).status).toBe(
      200,
    );
    const closed = await follow(yes, 'POST');
    expect(closed.status).toBe(409);
    expect(closed.text).toContain('answered');
    expect(await current()).toMatchObject({ response: { ok: false }, answered_via: null });
  });

  it('a single choice gets a button per option; an item without a form an Acknowledge button', async () => {
    const choice = await mailedItem({
      title: 'Which region?',
      form: {
        id: 'region',
        fields: [
          {
            id: 'region',
            type: 'radio',
            label: 'Region',
            options: [
              { value: 'eu', label: 'Europe' },
              { value: 'us', label: 'Americas' },
            ],
          },
        ],
      },
    });
    expect(choice.mail.answerLinks.map((l) => l.label)).toEqual(['Europe', 'Americas']);
    expect((await follow(choice.mail.button('Americas'), 'POST')).status).toBe(200);
    expect(await choice.current()).toMatchObject({ response: { region: 'us' }, answered_via: 'email' });

    const notice = await mailedItem({ title: 'Backups ran', message: 'All green.' });
    const ack = notice.mail.button('Acknowledge');
    expect((await follow(ack)).text).toContain('Confirm: Acknowledge');
    expect((await notice.current()).acked_at).toBeNull();
    expect((await follow(ack, 'POST')).status).toBe(200);
    expect((await notice.current()).acked_at).not.toBeNull();
    const timeline = await notice.alice.api.get<{ action: string; data: Record<string, unknown> }[]>(
      `/api/items/${notice.item.id}/timeline`,
    );
    expect(timeline.body.find((e) => e.action === 'item.ack')?.data).toEqual({ answered_via: 'email' });
  });

  it('other forms link to the item page only', async () => {
    const { mail, item } = await mailedItem({
      title: 'Review',
      form: {
        id: 'review',
        fields: [
          { id: 'ok', type: 'yesno', label: 'Approve?' },
          { id: 'why', type: 'textarea', label: 'Why?' },
        ],
      },
    });
    expect(mail.answerLinks).toEqual([]);
    expect(mail.links.map((l) => l.url)).toContain(`https://app.beckon.test/items/${item.id}`);
    expect(mail.text).toContain(`https://app.beckon.test/items/${item.id}`);
  });

  it('a person who may no longer answer gets a page saying so, and nothing is answered', async () => {
    const { alice, team, mail, current } = await mailedItem({ title: 'After leaving', form: yesNo });
    const viewer = (
      await env.server.database.sql<{ id: string }[]>`
      select id from roles where name = 'viewer' and org_id is null`
    )[0]!;
    await env.server.database.sql`
      update memberships set role_id = ${viewer.id} where org_id = ${team.org.id} and user_id = ${alice.id}`;
    expect((await follow(mail.button('Ship it'), 'POST')).status).toBe(403);
    expect((await current()).status).toBe('open');
  });

  it('keeps the record of a used link while the link could still be used, then prunes it', async () => {
    const { mail } = await mailedItem({ title: 'Prune me', form: yesNo });
    expect((await follow(mail.button('No'), 'POST')).status).toBe(200);
    const { sql } = env.server.database;
    const [used] = await sql<{ nonce: string; expires_at: Date }[]>`
      select nonce, expires_at from email_link_uses order by used_at desc limit 1`;
    expect(used!.expires_at.getTime()).toBeGreaterThan(Date.now() + 47 * HOUR);
    await sql`insert into email_link_uses (nonce, expires_at) values (gen_random_uuid(), now() - interval '2 days')`;
    const counts = await pruneExpired(sql);
    expect(counts.email_link_uses).toBe(1);
    expect(await sql`select 1 from email_link_uses where nonce = ${used!.nonce}`).toHaveLength(1);
  });
});

describe('answering an item that collects approvals from a mail', () => {
  it('says how many approvals are still needed, refuses a second answer and the excluded creator', async () => {
    const team = await env.team();
    const alice = await team.person();
    const bob = await team.person();
    const carol = await team.person();
    const item = await env.ask(team.agent, { title: 'Change?', form: yesNo, approvals: { required: 2 } });
    const [aliceMail, bobMail] = await Promise.all(
      [alice, bob].map(async (p) => readMail(await env.smtp.waitForMail(p.email))),
    );

    const counted = await follow(aliceMail!.button('Ship it'), 'POST');
    expect(counted.status).toBe(200);
    expect(counted.text).toContain('It needs 2 approvals: 1 so far.');
    expect((await alice.api.get<Item>(`/api/items/${item.id}`)).body.status).toBe('open');
    // A mail's link is a person's: counted on an item that does not allow agents, as Alice.
    const approved = (
      await alice.api.get<Array<{ action: string | null; actor_id: string | null; data: object }>>(
        `/api/items/${item.id}/timeline`,
      )
    ).body.find((e) => e.action === 'item.approve');
    expect(approved).toMatchObject({ actor_id: alice.id, data: { answered_via: 'email' } });
    expect(approved?.data).not.toHaveProperty('allow_agents');

    // Bob answered in the dashboard first: his mail's button is refused, saying why.
    expect((await bob.api.post(`/api/items/${item.id}/answer`, { values: { ok: false } })).status).toBe(200);
    const again = await follow(bobMail!.button('Ship it'), 'POST');
    expect(again.status).toBe(409);
    expect(again.text).toContain('You have already answered this item.');

    // An item whose creator (an agent of Carol's) may not approve it: Carol's mail says so.
    const carolsAgent = env.server.resource.as(
      (await new Factories(env.server.database.db).apiKey(team.org.id, carol.id)).token,
    );
    const own = await env.ask(carolsAgent, {
      title: 'My own change?',
      form: yesNo,
      approvals: { required: 1, exclude_creator: true },
    });
    const carolMail = await readMail(
      await env.until(() => env.mailsTo(carol.email).length === 2).then(() => env.mailsTo(carol.email)[1]!),
    );
    const refused = await follow(carolMail.button('Ship it'), 'POST');
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('creator may not answer');
    expect((await carol.api.get<Item>(`/api/items/${own.id}`)).body.status).toBe('open');
  });
});
