import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { Factories, type TestServer } from '../harness';
import { type Dashboard, dashboardPerFile } from './browser';

let server: TestServer;
let dashboard: Dashboard;

const shared = dashboardPerFile('approvals');
beforeAll(() => {
  ({ server, dashboard } = shared);
});

const FORM = {
  id: 'change',
  fields: [
    { id: 'approve', type: 'yesno', label: 'Approve the change?', yes_label: 'Approve', no_label: 'Reject' },
    { id: 'why', type: 'text', label: 'Why' },
  ],
};

/** The item's page for a person; `stale`: its live updates never arrive (a WebSocket that stays silent). */
async function open(token: string, id: string, stale = false): Promise<Page> {
  const context = await dashboard.context({ width: 1280, token });
  const page = await context.newPage();
  if (stale) await page.routeWebSocket(/\/api\/ws/, () => {});
  await page.goto(`/items/${id}`);
  await page.getByRole('heading', { name: 'Change the firewall rules?', level: 1 }).waitFor();
  return page;
}

describe('approvals and the timeout policy in the dashboard', () => {
  it('shows the policy, approvals so far, and refuses a second answer clearly', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const ada = await team.join('member');
    const bob = await team.join('member');
    await server.database.sql`update users set name = 'Ada Lovelace' where id = ${ada.id}`;
    const item = (
      await team.owner.post<{ id: string }>('/api/items', {
        title: 'Change the firewall rules?',
        form: FORM,
        approvals: { required: 2, exclude_creator: true, allow_timeout_answer: true },
        deadline_at: new Date(Date.now() + 2 * 3600_000).toISOString(),
        on_timeout: { action: 'answer', values: { approve: false, why: 'nobody decided' } },
      })
    ).body;

    const page = await open(ada.token, item.id);
    await page
      .getByText('At the deadline: answers “Approve the change?: Reject, Why: nobody decided”')
      .waitFor();
    await page.getByRole('heading', { name: 'Approvals: 0 of 2' }).waitFor();
    await page.getByText('Distinct people; not the creator.').waitFor();

    // A second page of Ada's, left open on the form while she answers in the first.
    const stale = await open(ada.token, item.id, true);
    await page.getByRole('radio', { name: 'Approve' }).click();
    await page.getByLabel('Why').fill('looks right');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page.getByRole('heading', { name: 'Approvals: 1 of 2' }).waitFor();
    await page.getByRole('list', { name: 'Responses' }).getByText('You').waitFor();
    await page
      .getByRole('status')
      .getByText(/You already answered \(approved, .*\): each person answers once/)
      .waitFor();
    expect(await page.getByRole('button', { name: 'Submit answer' }).count()).toBe(0);
    await page.screenshot({ path: path.join(tmpdir(), 'beckon-item-approvals.png'), fullPage: true });

    // The stale page still shows the form: the server refuses, and the page says why.
    await stale.getByRole('radio', { name: 'Approve' }).click();
    await stale.getByRole('button', { name: 'Submit answer' }).click();
    await stale.getByRole('alert').getByText('you have already answered this item').waitFor();

    // Bob's approval is the second: the item is answered, both responses listed in order.
    const bobs = await open(bob.token, item.id);
    await bobs
      .getByRole('list', { name: 'Responses' })
      .getByText(/^Ada Lovelace approved/)
      .waitFor();
    await bobs.getByRole('radio', { name: 'Approve' }).click();
    await bobs.getByRole('button', { name: 'Submit answer' }).click();
    await bobs.getByRole('heading', { name: 'Approvals: 2 of 2' }).waitFor();
    await bobs.getByRole('heading', { name: 'Answer', exact: true, level: 2 }).waitFor();
    const responses = bobs.getByRole('list', { name: 'Responses' }).getByRole('listitem');
    expect(await responses.allTextContents()).toEqual([
      expect.stringMatching(/^Ada Lovelace approved/),
      expect.stringMatching(/^You approved/),
    ]);
    // Answered: the policy is no longer shown.
    expect(await bobs.getByTestId('timeout-policy').count()).toBe(0);
  });
});
