import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ItemView } from '@beckon/contracts/items/item.contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, finishedRun, startTestServer, type TestServer } from '../harness';

const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));

let server: TestServer;
let ownerToken: string;
let alice: { id: string; token: string };

beforeAll(async () => {
  server = await startTestServer();
  const team = await new Factories(server.database.db).team(server.resource);
  ownerToken = team.token;
  alice = await team.join('member');
});
afterAll(() => server?.close());

/** Runs `beckon` as a child process with a person's token. */
function beckon(args: string[], token = ownerToken) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: token },
  });
  return finishedRun(child);
}

describe('beckon CLI: assignees, escalation, claims', () => {
  it('notify --assign --escalate, list --assigned / --claimed, claim, unclaim, assign --to', async () => {
    const created = await beckon([
      'notify',
      'Rotate the keys',
      '--assign',
      `user:${alice.id}`,
      '--escalate',
      '30m:remind',
      '--escalate',
      '2h:escalate:role:admin,role:owner',
      '--json',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const item = JSON.parse(created.stdout) as ItemView;
    expect(item.assignees).toEqual([{ type: 'user', id: alice.id }]);
    expect(item.escalation).toEqual([
      { after: 'PT30M', action: 'remind' },
      {
        after: 'PT2H',
        action: 'escalate',
        to: [
          { type: 'role', name: 'admin' },
          { type: 'role', name: 'owner' },
        ],
      },
    ]);
    const assigned = await beckon(['list', '--assigned', '--json'], alice.token);
    expect((JSON.parse(assigned.stdout) as { items: ItemView[] }).items.map((i) => i.id)).toEqual([item.id]);
    const claim = await beckon(['claim', item.id], alice.token);
    expect(claim).toMatchObject({ code: 0, stdout: `claimed ${item.id} (claimed by user ${alice.id})\n` });
    const taken = await beckon(['claim', item.id]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('item is claimed by someone else (409)');
    const claimed = await beckon(['list', '--claimed', '--json'], alice.token);
    expect((JSON.parse(claimed.stdout) as { items: ItemView[] }).items.map((i) => i.id)).toEqual([item.id]);
    expect(await beckon(['unclaim', item.id], alice.token)).toMatchObject({
      code: 0,
      stdout: `unclaimed ${item.id}\n`,
    });
    expect(await beckon(['assign', item.id, '--to', 'role:admin'])).toMatchObject({
      code: 0,
      stdout: `assigned ${item.id} to role:admin\n`,
    });
    const bad = await beckon(['notify', 'x', '--escalate', 'soon:remind']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"soon": a step\'s delay is 30m, 2h, 1d');
  });
});
