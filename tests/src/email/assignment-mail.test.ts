import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMail } from './mail';
import { startMailingServer } from './setup';

/** Mails follow assignees, assignments, reminders and escalation (the one notification path). */

let env: Awaited<ReturnType<typeof startMailingServer>>;

beforeAll(async () => {
  env = await startMailingServer();
});
afterAll(() => env?.close());

const subjects = async (address: string) =>
  Promise.all(env.mailsTo(address).map(async (mail) => (await readMail(mail)).subject));

describe('mail to assignees', () => {
  it('mails the assignees only, then the people assigned, reminded and escalated to', async () => {
    const team = await env.team();
    const alice = await team.person();
    const bob = await team.person();
    const carol = await team.person();
    const item = await env.ask(team.agent, {
      title: 'Renew the certificate',
      level: 'warning',
      assignees: [{ type: 'user', id: alice.id }],
      escalation: [
        { after: 'PT1H', action: 'remind' },
        { after: 'PT2H', action: 'escalate', to: [{ type: 'user', id: carol.id }] },
      ],
    });
    await env.smtp.waitForMail(alice.email);
    await env.mailsSettled();
    expect(env.mailsTo(bob.email)).toEqual([]);
    expect(env.mailsTo(carol.email)).toEqual([]);

    const assigned = await team.owner.post(`/api/items/${item.id}/assign`, {
      assignees: [
        { type: 'user', id: alice.id },
        { type: 'user', id: bob.id },
      ],
    });
    expect(assigned.status).toBe(200);
    await env.until(() => env.mailsTo(bob.email).length === 1);

    for (const step of [0, 1]) {
      await env.server.database.sql`
        update graphile_worker._private_jobs set run_at = now() where key = ${`escalate_item:${item.id}`}`;
      await env.until(
        async () =>
          (
            await env.server.database.sql`
            select 1 from items where id = ${item.id} and escalation_step = ${step + 1}`
          ).length === 1,
      );
    }
    await env.until(() => env.mailsTo(carol.email).length === 1);
    await env.until(() => env.mailsTo(alice.email).length === 2 && env.mailsTo(bob.email).length === 2);
    await env.mailsSettled();
    expect(await subjects(alice.email)).toEqual([
      '[warning] Renew the certificate',
      'Reminder: [warning] Renew the certificate',
    ]);
    expect(await subjects(bob.email)).toEqual([
      'Assigned to you: [warning] Renew the certificate',
      'Reminder: [warning] Renew the certificate',
    ]);
    expect(await subjects(carol.email)).toEqual(['Escalated: [warning] Renew the certificate']);
  });
});
