import { beforeAll, describe, expect, it } from 'vitest';
import { Factories, type TestServer } from '../harness';
import { type Dashboard, dashboardPerFile } from './browser';

/**
 * What an agent puts in an item reaches the person, never the agent's own server: remote images
 * in its Markdown are links, and the page loads nothing from elsewhere (the file fails on any
 * Content-Security-Policy violation, browser.ts).
 */

let server: TestServer;
let dashboard: Dashboard;

const shared = dashboardPerFile('item-content');
beforeAll(() => {
  ({ server, dashboard } = shared);
});

/** A 1×1 transparent PNG. */
const PIXEL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('an item from an agent in the dashboard', () => {
  it('shows remote images in Markdown as links and loads none of them', async () => {
    const team = await new Factories(server.database.db).team(server.resource);
    const key = await new Factories(server.database.db).apiKey(team.org.id, team.user.id);
    const message = [
      'Build **42** is ready.',
      '',
      '![build chart](https://tracker.example/pixel.gif?who=you)',
      '',
      '<img src="http://tracker.example/raw.gif" alt="">',
      '',
      `![inline chart](${PIXEL})`,
    ].join('\n');
    const item = (
      await server.resource.as(key.token).post<{ id: string }>('/api/items', {
        title: 'Ship build 42?',
        message,
        form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?' }] },
        approvals: { required: 1, allow_agents: true },
      })
    ).body;

    const context = await dashboard.context({ width: 1280, token: team.token });
    const remote: string[] = [];
    await context.route('**://tracker.example/**', (route) => {
      remote.push(route.request().url());
      return route.abort();
    });
    const page = await context.newPage();
    await page.goto(`/items/${item.id}`);
    const body = page.getByRole('region', { name: 'Message' });
    await body.getByText('is ready.').waitFor();

    const chart = body.getByRole('link', { name: 'Image: build chart' });
    expect(await chart.getAttribute('href')).toBe('https://tracker.example/pixel.gif?who=you');
    expect(await chart.getAttribute('rel')).toBe('noopener noreferrer nofollow');
    expect(await body.getByRole('link', { name: 'Image: tracker.example' }).getAttribute('href')).toBe(
      'http://tracker.example/raw.gif',
    );
    // Inline data is shown: nobody learns anything from it.
    expect(await body.getByRole('img', { name: 'inline chart' }).count()).toBe(1);
    expect(await body.locator('img[src*="tracker.example"]').count()).toBe(0);
    expect(remote).toEqual([]);

    // The approvals rule says agents may answer this one.
    await page.getByText('agents may answer too, each as its owner').waitFor();
    const csp = (await page.request.get('/')).headers()['content-security-policy'] ?? '';
    expect(csp).toContain("img-src 'self' data: blob:;");
    await context.close();
  });
});
