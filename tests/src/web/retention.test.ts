import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';
import { type Dashboard, ensureDashboardBuilt, startDashboard } from './browser';

let server: TestServer;
let dashboard: Dashboard;

beforeAll(async () => {
  ensureDashboardBuilt();
  server = await startTestServer();
  dashboard = await startDashboard(server);
}, 240_000);

afterAll(async () => {
  const refused = dashboard?.cspViolations ?? [];
  await dashboard?.close();
  await server?.close();
  expect(refused).toEqual([]);
});

describe('data retention in the dashboard', () => {
  it('lets an admin set the periods, names a period the plan does not allow, and hides it from members', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const member = await team.join('member');
    const context = await dashboard.context({ width: 1280, token: team.token });
    const page = await context.newPage();
    await page.goto('/settings/retention');
    await page.getByRole('heading', { name: 'Data retention' }).waitFor();
    await page.getByText('kept at most 30 days on this plan').waitFor();
    await page.getByLabel('Comments: days').fill('60');
    await page.getByLabel('Audit log: days').fill('45');
    await page.getByRole('button', { name: 'Save periods' }).click();
    await page.getByText('Audit log: days must be at most 30').waitFor();
    await page.getByLabel('Audit log: days').fill('14');
    await page.getByRole('button', { name: 'Save periods' }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    expect((await team.owner.get('/api/admin/retention')).body).toMatchObject({
      comments_days: 60,
      audit_days: 14,
      items_days: null,
    });
    await context.close();

    const asMember = await dashboard.context({ width: 1280, token: member.token });
    const memberPage = await asMember.newPage();
    await memberPage.goto('/settings');
    await memberPage.getByRole('heading', { name: 'Notifications' }).waitFor();
    expect(await memberPage.getByRole('link', { name: 'Data retention' }).count()).toBe(0);
    await asMember.close();
  });
});
