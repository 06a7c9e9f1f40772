import { beforeAll, describe, expect, it } from 'vitest';
import { Factories, type TestServer } from '../harness';
import { until } from '../sdk/helpers';
import { type Dashboard, dashboardPerFile } from './browser';

let server: TestServer;
let dashboard: Dashboard;

const shared = dashboardPerFile('agent-gates');
beforeAll(() => {
  ({ server, dashboard } = shared);
});

describe('the gates in the dashboard', () => {
  it("offers each gate's setup with the new key, and a gate request is answered with its form", async () => {
    const f = new Factories(server.database.db);
    const account = await f.account('owner');
    const context = await dashboard.context({ width: 1280, token: account.token });
    const page = await context.newPage();
    await page.goto('/agents');
    await page.getByLabel('Agent name').fill('coder');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('list', { name: 'Agents' }).getByText('coder').waitFor();
    await page.getByLabel('Key label').fill('laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    const key = await dialog.getByLabel('API key').inputValue();
    await dialog.getByRole('button', { name: 'Done' }).click();

    const expected: Array<[string, RegExp]> = [
      ['Claude Code', /beckon gate install/],
      ['Gate proxy', /"@beckon\/mcp",\s+"gate",\s+"--"/],
      ['Vercel AI', /toolApproval: beckonToolApproval\(\{ beckon \}\)/],
      ['OpenAI Agents', /askForApprovals\(result\.state, \{ beckon \}\)/],
      ['LangGraph', /approvalInterrupt\('drop_table'/],
      ['Claude Agent', /beckonCanUseTool\(\{ beckon, policy/],
      ['Python', /from beckon import Beckon/],
    ];
    for (const [tab, code] of expected) {
      await page.getByRole('tab', { name: tab, exact: true }).click();
      const panel = page.getByRole('tabpanel');
      await panel.getByText(code).waitFor();
      expect(await panel.textContent()).toContain(key);
    }
    await page.getByRole('tab', { name: 'Claude Code', exact: true }).click();
    expect(await page.getByRole('tabpanel').textContent()).toContain(`BECKON_URL=${dashboard.origin}`);

    // A gate request as a coding agent makes it; a person allows it for a while in the dashboard.
    const agent = server.resource.as(key);
    const asked = await agent.post<{ item: { id: string } }>('/api/gate/requests', {
      rule: 'Bash(git push *)',
      title: 'Bash: git push origin main',
      message: '```json\n{"command": "git push origin main"}\n```',
      grant_minutes: 15,
    });
    expect(asked.status).toBe(201);
    await page.goto(`/items/${asked.body.item.id}`);
    await page.getByRole('heading', { name: 'Bash: git push origin main', level: 1 }).waitFor();
    await page.getByRole('radio', { name: 'Allow for 15 minutes' }).click();
    await page.getByLabel('Note for the agent (optional)').fill('release day');
    await page.getByRole('button', { name: 'Submit answer' }).click();
    await until(
      async () =>
        (await agent.get<{ status: string }>(`/api/items/${asked.body.item.id}`)).body.status === 'answered',
    );
    const answered = await agent.get<{ response: unknown; answered_by: unknown }>(
      `/api/items/${asked.body.item.id}`,
    );
    expect(answered.body.response).toEqual({ decision: 'allow_for', note: 'release day' });
    const grant = await agent.post<{ rule: string; note: string }>('/api/gate/grants', {
      item_id: asked.body.item.id,
    });
    expect(grant.status).toBe(201);
    expect(grant.body).toMatchObject({ rule: 'Bash(git push *)', note: 'release day' });

    // The grant shows on the agents page with its agent and note; revoking it asks again.
    await page.goto('/agents');
    const grants = page.getByRole('list', { name: 'Gate grants' });
    await grants.getByText('Bash(git push *)').waitFor();
    expect(await grants.textContent()).toMatch(/coder[\s\S]*release day/);
    await page.getByRole('button', { name: 'Revoke grant Bash(git push *)' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke grant' }).click();
    await page.getByText('No grants in force.').waitFor();
    const again = await agent.post<{ grant: unknown; item: { id: string } | null }>('/api/gate/requests', {
      rule: 'Bash(git push *)',
      title: 'Bash: git push origin main',
    });
    expect(again.status).toBe(201);
    expect(again.body.grant).toBeNull();
    expect(again.body.item?.id).not.toBe(asked.body.item.id);
  }, 120_000);
});
