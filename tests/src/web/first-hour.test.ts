import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, type TestServer } from '../harness';
import { type Dashboard, dashboardPerFile, description, screenshot } from './browser';

const run = promisify(execFile);

type Item = { id: string; status: string; pinned: boolean; acked_at: string | null };

let server: TestServer;
let dashboard: Dashboard;
let f: Factories;

const shared = dashboardPerFile('first-hour');
beforeAll(() => {
  ({ server, dashboard } = shared);
  f = new Factories(server.database.db);
});

/** A new organization with its owner named Ada Lovelace, signed in; `api` as her. */
async function newOrganization() {
  const org = await f.org({ name: 'Acme Robotics' });
  const user = await f.user({ name: 'Ada Lovelace' });
  await f.member(org.id, user.id, 'owner');
  const session = await f.session(user.id, org.id);
  const page = await (await dashboard.context({ width: 1280, token: session.token })).newPage();
  return { org, user, page, api: server.resource.as(session.token) };
}

/** An agent named `name` of the organization, and the API as its key. */
async function agentNamed(api: HttpClient, orgId: string, userId: string, name: string) {
  const agent = (await api.post<{ id: string }>('/api/admin/agents', { name })).body;
  const key = await f.apiKey(orgId, userId, { agentId: agent.id });
  return server.resource.as(key.token);
}

const focusedName = (page: Page) =>
  page.evaluate(() => {
    const w = globalThis as unknown as { document: { activeElement: { textContent: string | null } | null } };
    return w.document.activeElement?.textContent?.trim() ?? '';
  });

describe('the first hour in the dashboard', () => {
  it('walks a new organization from an empty inbox to its first agent key and first item', async () => {
    const { page, api } = await newOrganization();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Connect your first agent' }).waitFor();
    // A missing name is a sentence beside the field.
    await page.getByRole('button', { name: 'Create agent and key' }).click();
    await page.getByText('Agent name is required.').waitFor();
    expect(await page.getByLabel('Agent name').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Agent name').fill('deploy-bot');
    await page.getByRole('button', { name: 'Create agent and key' }).click();
    const key = (await page.getByTestId('first-key').textContent())?.trim() ?? '';
    expect(key.length).toBeGreaterThan(20);
    const command = (await page.locator('pre code').textContent()) ?? '';
    expect(command).toContain(`Bearer ${key}`);
    expect(command).toContain(`${dashboard.origin}/api/items`);
    await screenshot(page, 'first-steps');

    // The command as pasted into a shell: the item arrives, and the inbox shows it.
    await run('sh', ['-c', command], { timeout: 30_000 });
    await page.getByRole('feed').getByRole('link', { name: 'Backup finished' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Connect your first agent' }).count()).toBe(0);
    const agents = (await api.get<{ name: string; active_keys: number }[]>('/api/admin/agents')).body;
    expect(agents).toEqual([expect.objectContaining({ name: 'deploy-bot', active_keys: 1 })]);
    // The item came live (the stream's event), named as the API names it.
    await page.getByRole('feed').getByRole('link', { name: 'Backup finished' }).click();
    await page
      .getByRole('region', { name: 'Details' })
      .getByText('agent deploy-bot', { exact: true })
      .waitFor();
    await page
      .getByRole('list', { name: 'Timeline' })
      .getByText('Agent deploy-bot created the item')
      .waitFor();
  }, 90_000);

  it('names agents, people and teams on the item page and in its timeline', async () => {
    const { org, user, page, api } = await newOrganization();
    const bot = await agentNamed(api, org.id, user.id, 'deploy-bot');
    const team = (await api.post<{ id: string }>('/api/admin/teams', { name: 'On-call' })).body;
    const item = (
      await bot.post<Item>('/api/items', {
        title: 'Deploy v2.4 to production?',
        assignees: [{ type: 'team', id: team.id }],
        form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?' }] },
      })
    ).body;
    await api.post(`/api/items/${item.id}/comments`, { body: 'Looks good to me.' });
    await api.post(`/api/items/${item.id}/answer`, { values: { ok: true } });

    await page.goto(`/items/${item.id}`);
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByText('agent deploy-bot', { exact: true }).waitFor();
    await details.getByText('Ada Lovelace', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Assignment' }).getByText('team On-call').waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('Agent deploy-bot created the item').waitFor();
    await timeline.getByText('Ada Lovelace commented').waitFor();
    await timeline.getByText('Ada Lovelace answered').waitFor();
    await page.getByRole('list', { name: 'Comments' }).getByText('Ada Lovelace').waitFor();
    // No id shows anywhere but in the ID row of the details.
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text.split(user.id).length - 1).toBe(0);
    expect(text.split(team.id).length - 1).toBe(0);
  }, 60_000);

  it('says what is wrong with an answer in sentences beside the fields', async () => {
    const { org, user, page, api } = await newOrganization();
    const bot = await agentNamed(api, org.id, user.id, 'release-bot');
    const item = (
      await bot.post<Item>('/api/items', {
        title: 'Scale the workers?',
        form: {
          id: 'scale',
          fields: [
            {
              id: 'go',
              type: 'yesno',
              label: 'Scale now?',
              required: true,
              yes_label: 'Scale',
              no_label: 'Wait',
            },
            { id: 'replicas', type: 'number', label: 'Replicas', max: 10 },
            { id: 'reason', type: 'text', label: 'Reason', required: true },
          ],
        },
      })
    ).body;
    await page.goto(`/items/${item.id}`);
    await page.getByLabel('Replicas').fill('12');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await page
      .getByRole('alert')
      .getByText('3 answers need attention: see the messages beside them.')
      .waitFor();
    await page.getByRole('group', { name: 'Scale now?' }).getByText('Choose “Scale” or “Wait”.').waitFor();
    expect(await description(page, 'Replicas')).toContain('“Replicas” must be at most 10.');
    expect(await description(page, 'Reason')).toContain('Fill in “Reason”: it is required.');
    expect(await page.getByText(/^required$/).count()).toBe(0);
  }, 60_000);

  it('offers one primary action on the item page, the others in a menu that works from the keyboard', async () => {
    const { org, user, page, api } = await newOrganization();
    const bot = await agentNamed(api, org.id, user.id, 'backup-bot');
    const item = (await bot.post<Item>('/api/items', { title: 'Nightly backup finished' })).body;
    await page.goto(`/items/${item.id}`);
    const header = page.getByRole('region', { name: 'Item actions' });
    await header.getByRole('button', { name: 'More actions' }).waitFor();
    const buttons = await header.getByRole('button').allTextContents();
    expect(buttons.map((b) => b.trim())).toEqual(['Acknowledge', 'More actions']);
    // The one button in the primary colour on the page (Claim beside the assignment is secondary).
    expect(await page.locator('main button.bg-indigo-700').allTextContents()).toEqual(['Acknowledge']);

    // Keyboard: open with Enter, move with the arrows, Escape closes and gives focus back.
    const more = header.getByRole('button', { name: 'More actions' });
    await more.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(
      expect.arrayContaining(['Dismiss', 'Pin', 'Archive', 'Pick a date and time…']),
    );
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await focusedName(page)).toBe('More actions');

    await page.keyboard.press('Enter');
    await menu.waitFor();
    for (let i = 0; i < 5 && (await focusedMenuItem(page)) !== 'Pin'; i++)
      await page.keyboard.press('ArrowDown');
    expect(await focusedMenuItem(page)).toBe('Pin');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await api.get<Item>(`/api/items/${item.id}`)).body.pinned).toBe(true);

    await header.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(async () => (await api.get<Item>(`/api/items/${item.id}`)).body.acked_at).toBeTruthy();
    // The next likeliest move takes its place: archiving.
    await header.getByRole('button', { name: 'Archive' }).waitFor();
  }, 60_000);
});

/** The menu item Headless UI marks as focused (it moves a virtual focus with the arrows). */
const focusedMenuItem = (page: Page) =>
  page
    .locator('[role="menuitem"][data-focus]')
    .first()
    .textContent({ timeout: 2000 })
    .then((t) => t?.trim() ?? '')
    .catch(() => '');
