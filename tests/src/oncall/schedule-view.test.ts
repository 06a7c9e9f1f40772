import { beforeAll, describe, expect, it } from 'vitest';
import { Factories, type TestServer } from '../harness';
import { type Dashboard, dashboardPerFile } from '../web/browser';

let server: TestServer;
let dashboard: Dashboard;

const shared = dashboardPerFile('schedule-view');
beforeAll(() => {
  ({ server, dashboard } = shared);
});

type Override = { user_id: string; starts_at: string; ends_at: string };

describe('the on-call page of the dashboard', () => {
  it('shows the next two weeks of a schedule, and lets an admin put someone on call for a while', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const ada = await team.join('member');
    const grace = await team.join('member');
    const sql = server.database.sql;
    await sql`update users set name = 'Ada Lovelace' where id = ${ada.id}`;
    await sql`update users set name = 'Grace Hopper' where id = ${grace.id}`;
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const schedule = (
      await team.owner.post<{ id: string }>('/api/schedules', {
        name: 'platform',
        time_zone: 'UTC',
        layers: [
          {
            members: [{ type: 'user', id: ada.id }],
            start: `${yesterday}T00:00`,
            turn: { unit: 'week', count: 1 },
          },
        ],
      })
    ).body;

    // A member reads the timeline but is offered no override form.
    const context = await dashboard.context({ width: 1280, token: ada.token });
    const memberPage = await context.newPage();
    await memberPage.goto('/');
    await memberPage.getByRole('link', { name: 'On-call' }).click();
    await expect.poll(() => memberPage.getByRole('heading', { name: 'On-call' }).count()).toBe(1);
    const memberShifts = memberPage.getByRole('list', { name: 'Shifts' });
    await memberShifts.waitFor();
    expect(await memberShifts.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining('Ada Lovelace'),
    ]);
    expect(await memberPage.getByRole('form', { name: 'New override' }).count()).toBe(0);

    const ownerContext = await dashboard.context({ width: 1280, token: team.token });
    const page = await ownerContext.newPage();
    await page.goto('/schedules');
    const form = page.getByRole('form', { name: 'New override' });
    await form.getByLabel('Person').selectOption({ label: 'Grace Hopper' });
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await form.getByLabel('From').fill(`${day(2)}T09:00`);
    await form.getByLabel('Until').fill(`${day(3)}T09:00`);
    await form.getByRole('button', { name: 'Add override' }).click();

    const shifts = page.getByRole('list', { name: 'Shifts' });
    await expect
      .poll(async () => (await shifts.getByRole('listitem').allTextContents()).map((t) => t.split(/\s/)[0]))
      .toEqual(['Ada', 'Grace', 'Ada']);
    // The browser runs in UTC: the override is exactly the period typed.
    const overrides = await team.owner.get<Override[]>(`/api/schedules/${schedule.id}/overrides`);
    expect(overrides.body).toEqual([
      expect.objectContaining({
        user_id: grace.id,
        starts_at: `${day(2)}T09:00:00.000Z`,
        ends_at: `${day(3)}T09:00:00.000Z`,
      }),
    ]);
  });

  it('lets a member swap one of their shifts with someone else’s from the timeline', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const ada = await team.join('member');
    const grace = await team.join('member');
    const sql = server.database.sql;
    await sql`update users set name = 'Ada Lovelace' where id = ${ada.id}`;
    await sql`update users set name = 'Grace Hopper' where id = ${grace.id}`;
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    // Daily turns: Grace today, Ada tomorrow, Grace the day after, and so on.
    const schedule = (
      await team.owner.post<{ id: string }>('/api/schedules', {
        name: 'rota',
        time_zone: 'UTC',
        layers: [
          {
            members: [
              { type: 'user', id: ada.id },
              { type: 'user', id: grace.id },
            ],
            start: `${yesterday}T00:00`,
            turn: { unit: 'day', count: 1 },
          },
        ],
      })
    ).body;
    const context = await dashboard.context({ width: 1280, token: ada.token });
    const page = await context.newPage();
    await page.goto('/schedules');
    const shifts = page.getByRole('list', { name: 'Shifts' });
    await shifts.waitFor();
    const names = async () =>
      (await shifts.getByRole('listitem').allTextContents()).map((t) => t.split(/\s/)[0]);
    await expect.poll(async () => (await names()).slice(0, 4)).toEqual(['Grace', 'Ada', 'Grace', 'Ada']);
    const before = (await names()).length;

    // Ada gives Grace tomorrow and takes the day after: each now has two days in a row.
    const form = page.getByRole('form', { name: 'Swap shifts' });
    await form.getByLabel('Your shift').selectOption({ index: 1 });
    await form.getByLabel('Their shift').selectOption({ index: 2 });
    await form.getByRole('button', { name: 'Swap' }).click();
    await expect.poll(async () => (await names()).length).toBe(before - 2);
    expect((await names()).slice(0, 3)).toEqual(['Grace', 'Ada', 'Grace']);

    const day = (offset: number) =>
      `${new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)}T00:00:00.000Z`;
    const overrides = await team.owner.get<Override[]>(`/api/schedules/${schedule.id}/overrides`);
    expect(overrides.body).toEqual([
      expect.objectContaining({ user_id: grace.id, starts_at: day(1), ends_at: day(2) }),
      expect.objectContaining({ user_id: ada.id, starts_at: day(2), ends_at: day(3) }),
    ]);
    const [entry] = await sql<{ actor_id: string }[]>`
      select actor_id from audit_entries where action = 'schedule.swap' and data->>'schedule_id' = ${schedule.id}`;
    expect(entry?.actor_id).toBe(ada.id);
  });
});
