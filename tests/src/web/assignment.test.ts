import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { Factories, type TestServer } from '../harness';
import { type Dashboard, dashboardPerFile } from './browser';

let server: TestServer;
let dashboard: Dashboard;

const shared = dashboardPerFile('assignment');
beforeAll(() => {
  ({ server, dashboard } = shared);
});

async function open(token: string, url: string): Promise<Page> {
  const context = await dashboard.context({ width: 1280, token });
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

describe('assignees, claims and escalation in the dashboard', () => {
  it('shows assignees and the next step with its countdown; claims and releases; lists mine', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const ada = await team.join('member');
    const bob = await team.join('member');
    const assigned = (
      await team.owner.post<{ id: string }>('/api/items', {
        title: 'Review the invoice',
        assignees: [
          { type: 'user', id: ada.id },
          { type: 'role', name: 'admin' },
        ],
        escalation: [
          { after: 'PT2H', action: 'remind' },
          { after: 'P1D', action: 'escalate', to: [{ type: 'role', name: 'owner' }] },
        ],
      })
    ).body;
    await team.owner.post('/api/items', {
      title: 'Someone else’s job',
      assignees: [{ type: 'user', id: bob.id }],
    });

    const page = await open(ada.token, `/items/${assigned.id}`);
    await page.getByRole('heading', { name: 'Review the invoice', level: 1 }).waitFor();
    const section = page.getByRole('region', { name: 'Assignment' });
    await section.getByText('Assigned to: you, role admin').waitFor();
    await section.getByText('Nobody has claimed it.').waitFor();
    const next = page.getByTestId('next-step');
    await next.getByText(/^Next: Reminder in 1h 5\dm \(step 1 of 2\)$/).waitFor();

    await section.getByRole('button', { name: 'Claim' }).click();
    await section.getByText(/^Claimed by you since/).waitFor();
    await page.getByRole('region', { name: 'Timeline' }).getByText('Test User claimed it').waitFor();
    expect(
      (await team.owner.get<{ claimed_by: unknown }>(`/api/items/${assigned.id}`)).body.claimed_by,
    ).toEqual({
      type: 'user',
      id: ada.id,
    });

    // Bob sees Ada's claim and cannot release it (a member has no org.manage).
    const bobs = await open(bob.token, `/items/${assigned.id}`);
    await bobs
      .getByRole('region', { name: 'Assignment' })
      .getByText(/^Claimed by Test User since/)
      .waitFor();
    expect(await bobs.getByRole('button', { name: /Release/ }).count()).toBe(0);

    // The inbox views.
    await page.goto('/?view=assigned');
    const feed = page.getByRole('feed', { name: 'Assigned to me' });
    await feed.getByRole('link', { name: 'Review the invoice' }).waitFor();
    await feed.getByText('Assigned to you · Claimed by you').waitFor();
    expect(await feed.getByRole('link', { name: 'Someone else’s job' }).count()).toBe(0);
    await page.getByRole('tab', { name: 'Claimed by me' }).click();
    const claimed = page.getByRole('feed', { name: 'Claimed by me' });
    await claimed.getByRole('link', { name: 'Review the invoice' }).waitFor();

    // Releasing the claim from the item page takes it out of "Claimed by me" (the cache's list rule).
    await claimed.getByRole('link', { name: 'Review the invoice' }).click();
    await page
      .getByRole('region', { name: 'Assignment' })
      .getByRole('button', { name: 'Release my claim' })
      .click();
    await page.getByRole('region', { name: 'Assignment' }).getByText('Nobody has claimed it.').waitFor();
    await page.goBack();
    await page.getByText('You have not claimed any item.').waitFor();
  });

  it('names in the timeline who was away, who was told instead, and whom a delegate answered for', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const ada = await team.join('member');
    const bob = await team.join('member');
    const hour = 3_600_000;
    const away = await ada.api.post('/api/me/out-of-office', {
      starts_at: new Date(Date.now() - hour).toISOString(),
      ends_at: new Date(Date.now() + hour).toISOString(),
      delegate_id: bob.id,
    });
    expect(away.status).toBe(201);
    await server.database.sql`update users set name = 'Ada' where id = ${ada.id}`;
    await server.database.sql`update users set name = 'Bob' where id = ${bob.id}`;
    const item = (
      await team.owner.post<{ id: string }>('/api/items', {
        title: 'Sign the contract',
        form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Sign?', required: true }] },
        assignees: [{ type: 'user', id: ada.id }],
      })
    ).body;
    expect((await bob.api.post(`/api/items/${item.id}/answer`, { values: { ok: true } })).status).toBe(200);

    const page = await open(team.token, `/items/${item.id}`);
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('Test User created the item; Ada is away, so Bob was told').waitFor();
    await timeline.getByText('Bob answered on behalf of Ada (away)').waitFor();
  });

  it('lets a person set their working hours and time away with a delegate in the settings', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const bob = await team.join('member');
    await server.database.sql`update users set name = 'Bob' where id = ${bob.id}`;
    const page = await open(team.token, '/settings/availability');
    const panel = page.getByRole('region', { name: 'Availability' });
    await panel.getByText('Always available: no working hours set.').waitFor();
    const hours = panel.getByRole('form', { name: 'Working hours' });
    await hours.getByLabel('Sat').check();
    await hours.getByLabel('From').fill('08:00');
    await hours.getByLabel('To').fill('16:00');
    await hours.getByLabel('Time zone').fill('Europe/Paris');
    await hours.getByRole('button', { name: 'Save working hours' }).click();
    await panel
      .getByText('Working hours: Mon, Tue, Wed, Thu, Fri, Sat 08:00–16:00 (Europe/Paris).')
      .waitFor();
    type Availability = {
      working_hours: { time_zone: string; windows: unknown[] } | null;
      out_of_office: { delegate_id: string | null }[];
    };
    const saved = (await team.owner.get<Availability>('/api/me/availability')).body;
    expect(saved.working_hours).toEqual({
      time_zone: 'Europe/Paris',
      windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], from: '08:00', to: '16:00' }],
    });
    // A zone that does not exist is refused under its field.
    await hours.getByLabel('Time zone').fill('Mars/Olympus');
    await hours.getByRole('button', { name: 'Save working hours' }).click();
    await hours.getByText(/IANA time zone/).waitFor();

    const away = panel.getByRole('form', { name: 'New time away' });
    await away.getByLabel('Away from').fill('2031-07-01T09:00');
    await away.getByLabel('Back on').fill('2031-07-15T09:00');
    await away.getByRole('combobox', { name: 'Delegate' }).selectOption({ label: 'Bob' });
    await away.getByRole('button', { name: 'Add time away' }).click();
    await panel.getByText(/delegate: Bob/).waitFor();
    const planned = (await team.owner.get<Availability>('/api/me/availability')).body;
    expect(planned.out_of_office.map((o) => o.delegate_id)).toEqual([bob.id]);
    await panel.getByRole('button', { name: 'Delete' }).click();
    await panel.getByText('No time away planned.').waitFor();
    expect((await team.owner.get<Availability>('/api/me/availability')).body.out_of_office).toEqual([]);
  });
});
