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
});
