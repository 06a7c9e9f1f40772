import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Factories, type TestServer } from '../harness';
import { type Dashboard, dashboardPerFile } from '../web/browser';

let server: TestServer;
let dashboard: Dashboard;

const shared = dashboardPerFile('proofs-action');
beforeAll(() => {
  ({ server, dashboard } = shared);
});

describe('an item bound to an action, in the dashboard', () => {
  it('shows the action exactly as bound, with the digest the answer decides', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const key = await new Factories(server.database.db).apiKey(team.org.id, team.user.id);
    const action = { kind: 'payments.refund', args: { order: 'A-1009', amount: 129.5, currency: 'EUR' } };
    const item = (
      await server.resource.as(key.token).post<{ id: string }>('/api/items', {
        title: 'Refund order A-1009?',
        form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Refund?' }] },
        action,
      })
    ).body;
    const canonical = '{"amount":129.5,"currency":"EUR","order":"A-1009"}';
    const digest = createHash('sha256')
      .update(`{"args":${canonical},"kind":"payments.refund"}`)
      .digest('hex');

    const context = await dashboard.context({ width: 1280, token: team.token });
    const page = await context.newPage();
    await page.goto(`/items/${item.id}`);
    const section = page.getByRole('region', { name: 'Action to decide' });
    await section.waitFor();
    expect(await section.getByText('payments.refund').count()).toBe(1);
    expect(await section.locator('pre').textContent()).toBe(canonical);
    expect(await section.getByTestId('action-digest').textContent()).toBe(digest);
    await context.close();
  });
});
