import { notificationParts } from '@beckon/server/modules/items/changes/notify-people';
import { statementOf } from '@beckon/server/statement-parts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMail } from './mail';
import { follow, startMailingServer } from './setup';

const refused = new Set<string>();
let env: Awaited<ReturnType<typeof startMailingServer>>;

beforeAll(async () => {
  env = await startMailingServer({ refuse: (address) => (refused.has(address) ? 550 : null) });
});
afterAll(async () => {
  await env?.close();
});

type Delivery = {
  kind: string;
  url: string;
  event: string;
  status_code: number | null;
  error: string | null;
  item_id: string | null;
};

describe('item mails', () => {
  it('mails a new item to the members with mail on: text and safe HTML, List-Unsubscribe, logged', async () => {
    const team = await env.team();
    const alice = await team.person();
    const bob = await team.person({ enabled: false });
    const item = await env.ask(team.agent, {
      title: 'Deploy?',
      level: 'warning',
      message:
        '**Canary** is green. <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n[runbook](https://runbook.example/x) [bad](javascript:alert(1))',
    });
    const mail = await readMail(await env.smtp.waitForMail(alice.email));
    await env.mailsSettled();
    expect(env.mailsTo(bob.email)).toEqual([]);
    expect(env.mailsTo(team.user.email)).toEqual([]);

    expect(mail.subject).toBe('[warning] Deploy?');
    expect(mail.text).toContain('**Canary** is green.');
    expect(mail.text).toContain(`https://app.beckon.test/items/${item.id}`);
    expect(mail.html).toContain('<strong>Canary</strong>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(mail.html).not.toMatch(/<script|<img|javascript:/i);
    expect(mail.links.map((l) => l.url)).toContain('https://runbook.example/x');
    expect(mail.header('List-Unsubscribe')).toMatch(
      /^<http:\/\/127\.0\.0\.1:\d+\/api\/email\/unsubscribe\?token=[^>]+>$/,
    );
    expect(mail.header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');

    const log = await team.owner.get<{ deliveries: Delivery[] }>(`/api/deliveries?item_id=${item.id}`);
    expect(log.body.deliveries).toEqual([
      expect.objectContaining({
        kind: 'email',
        url: `mailto:${alice.email}`,
        event: 'item.created',
        status_code: 250,
        error: null,
      }),
    ]);
  });

  it("never mails one organization's items to another's people", async () => {
    const a = await env.team();
    const b = await env.team();
    const alice = await a.person();
    const carol = await b.person();
    // Dave belongs to both and has mail on in B only.
    const [dave] = await env.server.database.sql<{ id: string; email: string }[]>`
      insert into users (id, email) values (gen_random_uuid(), ${`dave-${a.org.id.slice(0, 8)}@example.test`})
      returning id, email`;
    const member = (
      await env.server.database.sql<
        { id: string }[]
      >`select id from roles where name = 'member' and org_id is null`
    )[0]!;
    await env.server.database.sql`
      insert into memberships (org_id, user_id, role_id)
      values (${a.org.id}, ${dave!.id}, ${member.id}), (${b.org.id}, ${dave!.id}, ${member.id})`;
    await env.server.database
      .sql`insert into email_settings (user_id, org_id, enabled) values (${dave!.id}, ${b.org.id}, true)`;
    await env.server.syncIdentities();

    await env.ask(a.agent, { title: 'Only for A' });
    await env.smtp.waitForMail(alice.email);
    await env.mailsSettled();
    expect(env.mailsTo(carol.email)).toEqual([]);
    expect(env.mailsTo(dave!.email)).toEqual([]);

    await env.ask(b.agent, { title: 'Only for B' });
    const mail = await readMail(await env.smtp.waitForMail(dave!.email));
    expect(mail.subject).toBe('Only for B');
    expect(mail.html).toContain(b.org.name);
    await env.smtp.waitForMail(carol.email);
    await env.mailsSettled();
    expect(env.mailsTo(alice.email)).toHaveLength(1);
    // Each organization's delivery log holds its own mails only.
    const logA = await a.owner.get<{ deliveries: Delivery[] }>('/api/deliveries');
    expect(logA.body.deliveries.map((d) => d.url)).toEqual([`mailto:${alice.email}`]);
  });

  it('applies the push preferences: minimum level and quiet hours', async () => {
    const team = await env.team();
    const alice = await team.person();
    expect((await alice.api.put('/api/me/preferences', { min_level: 'warning' })).status).toBe(200);
    await env.ask(team.agent, { title: 'below the minimum', level: 'info' });
    await env.ask(team.agent, { title: 'at the minimum', level: 'warning' });
    await env.until(() => env.mailsTo(alice.email).length === 1);
    // Quiet all day long (00:00 to 23:59): only the allowed level (error) comes through.
    await alice.api.put('/api/me/preferences', {
      quiet_hours_enabled: true,
      quiet_hours_start: '00:00',
      quiet_hours_end: '23:59',
      quiet_hours_allow_levels: 'error',
    });
    await env.ask(team.agent, { title: 'quiet warning', level: 'warning' });
    await env.ask(team.agent, { title: 'loud error', level: 'error' });
    await env.until(() => env.mailsTo(alice.email).length === 2);
    await env.mailsSettled();
    const subjects = await Promise.all(
      env.mailsTo(alice.email).map(async (m) => (await readMail(m)).subject),
    );
    expect(subjects).toEqual(['[warning] at the minimum', '[error] loud error']);
  });

  it('unsubscribes in one click: the GET only asks, the one-click POST turns mail off', async () => {
    const team = await env.team();
    const alice = await team.person();
    await env.ask(team.agent, { title: 'First' });
    const mail = await readMail(await env.smtp.waitForMail(alice.email));
    const url = mail.header('List-Unsubscribe')!.slice(1, -1);
    expect(mail.links.map((l) => l.url)).toContain(url);

    const page = await follow(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Turn off mail');
    expect((await alice.api.get<{ enabled: boolean }>('/api/me/email')).body.enabled).toBe(true);

    const done = await follow(url, 'POST', 'List-Unsubscribe=One-Click');
    expect(done.status).toBe(200);
    expect(done.text).toContain('Mail turned off');
    expect((await alice.api.get<{ enabled: boolean }>('/api/me/email')).body).toMatchObject({
      enabled: false,
    });
    expect((await follow(url, 'POST', 'List-Unsubscribe=One-Click')).status).toBe(200);

    await env.ask(team.agent, { title: 'Second' });
    await env.mailsSettled();
    expect(env.mailsTo(alice.email)).toHaveLength(1);
  });

  it('batches items below the digest level into one mail per period', async () => {
    const team = await env.team();
    const alice = await team.person({ enabled: true, digest: 'hourly', digest_below: 'warning' });
    for (const title of ['one', 'two', 'three']) await env.ask(team.agent, { title, level: 'info' });
    await env.ask(team.agent, { title: 'at once', level: 'error' });
    const urgent = await readMail(await env.smtp.waitForMail(alice.email));
    expect(urgent.subject).toBe('[error] at once');

    const jobs = await env.server.database.sql<{ id: string; run_at: Date }[]>`
      select id, run_at from graphile_worker.jobs
       where task_identifier = 'send_email_digest' and key = ${`email_digest:${team.org.id}:${alice.id}`}`;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.run_at.getTime()).toBeGreaterThan(Date.now() + 50 * 60 * 1000);
    // The hour passes.
    await env.server.database
      .sql`select graphile_worker.reschedule_jobs(array[${jobs[0]!.id}]::bigint[], run_at => now())`;
    await env.until(() => env.mailsTo(alice.email).length === 2);
    const digest = await readMail(env.mailsTo(alice.email)[1]!);
    expect(digest.subject).toBe(`3 new items in ${team.org.name}`);
    for (const title of ['one', 'two', 'three']) expect(digest.text).toContain(`- ${title}`);
    expect(digest.header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    await env.until(
      async () =>
        (await env.server.database.sql`select 1 from email_digest_entries where user_id = ${alice.id}`)
          .length === 0,
    );
    const log = await team.owner.get<{ deliveries: Delivery[] }>('/api/deliveries');
    expect(log.body.deliveries.filter((d) => d.event === 'email.digest')).toEqual([
      expect.objectContaining({ kind: 'email', item_id: null, status_code: 250, error: null }),
    ]);
  });

  it('records a refused mail in the delivery log and does not retry a permanent refusal', async () => {
    const team = await env.team();
    const alice = await team.person();
    refused.add(alice.email);
    const item = await env.ask(team.agent, { title: 'Nobody home' });
    await env.mailsSettled();
    const log = await team.owner.get<{ deliveries: Delivery[] }>(`/api/deliveries?item_id=${item.id}`);
    expect(log.body.deliveries).toEqual([
      expect.objectContaining({ kind: 'email', url: `mailto:${alice.email}`, status_code: 550 }),
    ]);
    expect(log.body.deliveries[0]!.error).toContain('refused');
  });

  it('does not mail an item to the person who created it', async () => {
    const team = await env.team();
    const alice = await team.person();
    const bob = await team.person();
    await alice.api.post('/api/items', { title: 'Mine' });
    await env.smtp.waitForMail(bob.email);
    await env.mailsSettled();
    expect(env.mailsTo(alice.email)).toEqual([]);
  });

  it('mails the people named later (an assignment), never those of another organization', async () => {
    const team = await env.team();
    const other = await env.team();
    const alice = await team.person();
    const bob = await team.person();
    const carol = await other.person();
    const item = await env.ask(team.agent, { title: 'Rotate the keys', level: 'warning' });
    await env.smtp.waitForMail(alice.email);
    await env.mailsSettled();
    const row = {
      id: item.id,
      org_id: team.org.id,
      title: 'Rotate the keys',
      message: null,
      level: 'warning',
      channel_id: null,
    };
    await env.server.database.sql.begin(async (tx) =>
      statementOf(
        tx,
        await notificationParts(env.server.deps, tx, row, { only: [bob.id, carol.id] }, 'assigned'),
      ),
    );
    await env.until(() => env.mailsTo(bob.email).length === 2);
    await env.mailsSettled();
    expect((await readMail(env.mailsTo(bob.email)[1]!)).subject).toBe(
      'Assigned to you: [warning] Rotate the keys',
    );
    expect(env.mailsTo(alice.email)).toHaveLength(1);
    expect(env.mailsTo(carol.email)).toEqual([]);
    const log = await team.owner.get<{ deliveries: Delivery[] }>(`/api/deliveries?item_id=${item.id}`);
    expect(log.body.deliveries.filter((d) => d.event === 'item.assigned').map((d) => d.url)).toEqual([
      `mailto:${bob.email}`,
    ]);
  });
});
