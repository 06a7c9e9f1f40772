import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Factories,
  type Finished,
  finishedRun,
  freePort,
  type HttpClient,
  startTestServer,
  type TestServer,
} from '../harness';
import { gateItems as gateItems_, openQuestion } from './questions';

const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));

let server: TestServer;
let person: HttpClient;
let personId: string;
let agentToken: string;
let project: string;

type Item = {
  id: string;
  title: string;
  message: string;
  status: string;
  tags: string[];
  assignees: unknown[];
  metadata: Record<string, unknown>;
};
type Run = Finished;

beforeAll(async () => {
  // The worker expires questions at their deadline.
  server = await startTestServer({ worker: true });
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  person = server.resource.as(account.token);
  personId = account.user.id;
  agentToken = (await f.apiKey(account.org.id, account.user.id)).token;
  project = await mkdtemp(path.join(tmpdir(), 'beckon-gate-'));
  await mkdir(path.join(project, '.beckon'));
});
afterAll(async () => {
  await server?.close();
  if (project) await rm(project, { recursive: true, force: true });
});

const writePolicy = (policy: Record<string, unknown>, file = path.join(project, '.beckon', 'gate.json')) =>
  writeFile(file, JSON.stringify(policy));

const event = (command: string, hook = 'PreToolUse') => ({
  session_id: 'session-1',
  hook_event_name: hook,
  tool_name: 'Bash',
  tool_input: { command, description: 'a test' },
  tool_use_id: 'toolu_1',
  cwd: project,
});

/** `beckon gate` as Claude Code runs it: the event on stdin. */
function gate(input: unknown, env: Record<string, string> = {}, args: string[] = []): Promise<Run> {
  const child = spawn(process.execPath, [BIN, 'gate', ...args], {
    env: { ...process.env, BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: agentToken, ...env },
  });
  const done = finishedRun(child);
  child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  return done;
}

const decision = (run: Run) => {
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as { hookSpecificOutput: Record<string, unknown> };
};

const gateItems = () => gateItems_<Item>(person);
const question = (title: string) => openQuestion<Item>(person, title);

describe('beckon gate', () => {
  it('decides allow and deny rules without asking anyone', async () => {
    await writePolicy({ allow: ['Bash(npm test*)'], deny: ['Bash(rm -rf *)'] });
    const before = (await gateItems()).length;
    expect(decision(await gate(event('npm test -- --watch')))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Allowed by the gate policy rule Bash(npm test*)',
      },
    });
    expect(decision(await gate(event('cd / && rm -rf home', 'PermissionRequest')))).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied by the gate policy rule Bash(rm -rf *)' },
      },
    });
    expect((await gateItems()).length).toBe(before);
  });

  it('asks the policy\'s people; "allow for N minutes" passes the same rule without asking again', async () => {
    await writePolicy({
      ask: ['Bash(git push*)'],
      assignees: [{ type: 'user', id: personId }],
      grant_minutes: 10,
    });
    const pending = gate(event('git push origin main'));
    const asked = await question('Bash: git push origin main');
    expect(asked.assignees).toEqual([{ type: 'user', id: personId }]);
    expect(asked.message).toContain('"command": "git push origin main"');
    expect(asked.message).toContain('Rule: `Bash(git push*)`');
    expect(asked.metadata).toMatchObject({
      hook_event: 'PreToolUse',
      session_id: 'session-1',
      tool_use_id: 'toolu_1',
      beckon_gate: { rule: 'Bash(git push*)', grant_minutes: 10 },
    });
    const answered = await person.post(`/api/items/${asked.id}/answer`, {
      values: { decision: 'allow_for', note: 'release day' },
    });
    expect(answered.status).toBe(200);
    expect(decision(await pending).hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: 'Allowed by a person through Beckon: release day',
    });

    const count = (await gateItems()).length;
    const again = decision(await gate(event('git push origin dev')));
    expect(again.hookSpecificOutput.permissionDecision).toBe('allow');
    expect(again.hookSpecificOutput.permissionDecisionReason).toMatch(
      /^Allowed by a person through Beckon \(a grant until .+\): release day$/,
    );
    expect((await gateItems()).length).toBe(count);
  });

  it("tells the agent a denial with the note as the reason, in the event's own format", async () => {
    await writePolicy({ default: 'ask' });
    const pending = gate(event('terraform destroy', 'PermissionRequest'));
    const asked = await question('Bash: terraform destroy');
    await person.post(`/api/items/${asked.id}/answer`, {
      values: { decision: 'deny', note: 'not on Friday' },
    });
    expect(decision(await pending)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied by a person through Beckon: not on Friday' },
      },
    });
  });

  it("falls back when nobody decides in time: deny, or the agent's own prompt; never an allow", async () => {
    await writePolicy({ default: 'ask', timeout_seconds: 10, on_timeout: 'ask' });
    const expired = decision(await gate(event('make deploy')));
    expect(expired.hookSpecificOutput).toEqual({
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: 'Nobody decided within 10 s: asking here instead',
    });
    expect((await gateItems()).find((i) => i.title === 'Bash: make deploy')?.status).toBe('expired');

    // Withdrawn by the agent: the same fallback; for a PermissionRequest that is no output at all.
    const pending = gate(event('make release', 'PermissionRequest'));
    const asked = await question('Bash: make release');
    await server.resource.as(agentToken).post(`/api/items/${asked.id}/withdraw`);
    expect(await pending).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('denies (on_timeout) when Beckon cannot be reached or no token is set', async () => {
    await writePolicy({ ask: ['Bash(git push*)'] });
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const unreachable = decision(await gate(event('git push'), { BECKON_URL: nobody }));
    expect(unreachable.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(unreachable.hookSpecificOutput.permissionDecisionReason).toMatch(
      /^Beckon could not be asked \(cannot reach .+\): denied \(the gate's on_timeout\)$/,
    );
    const refused = decision(await gate(event('git push'), { BECKON_TOKEN: 'not-a-key' }));
    expect(refused.hookSpecificOutput.permissionDecisionReason).toContain('unauthorized');
    const unset = decision(await gate(event('git push'), { BECKON_TOKEN: '' }));
    expect(unset.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  });

  it('reads --policy, and reports a missing or broken policy as a non-blocking error', async () => {
    const other = path.join(project, 'other.json');
    await writePolicy({ allow: ['Bash'] }, other);
    const given = decision(await gate(event('anything'), {}, ['--policy', other]));
    expect(given.hookSpecificOutput.permissionDecision).toBe('allow');

    await writeFile(path.join(project, '.beckon', 'gate.json'), '{"allow": "Bash"}');
    const broken = await gate(event('ls'));
    expect(broken).toMatchObject({ code: 1, stdout: '' });
    expect(broken.stderr).toContain('"allow" must be a list of rules');
    await rm(path.join(project, '.beckon', 'gate.json'));
    const missing = await gate(event('ls'));
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('beckon gate install');
    expect(await gate('not json')).toMatchObject({ code: 1, stdout: '' });
  });
});

describe('beckon gate install', () => {
  it('writes the hook into the settings beside what is there, and a starter policy once', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'beckon-install-'));
    try {
      await mkdir(path.join(dir, '.claude'));
      const existing = { permissions: { allow: ['Read'] }, hooks: { Stop: [{ hooks: [] }] } };
      await writeFile(path.join(dir, '.claude', 'settings.json'), JSON.stringify(existing));
      const run = (args: string[]) => gateRun(['install', '--dir', dir, ...args]);
      const first = await run(['--event', 'PreToolUse', '--event', 'PermissionRequest']);
      expect(first.code).toBe(0);
      const settings = JSON.parse(await readFile(path.join(dir, '.claude', 'settings.json'), 'utf8'));
      const entry = { matcher: '*', hooks: [{ type: 'command', command: 'beckon gate', timeout: 330 }] };
      expect(settings).toEqual({
        ...existing,
        hooks: { ...existing.hooks, PreToolUse: [entry], PermissionRequest: [entry] },
      });
      const policy = JSON.parse(await readFile(path.join(dir, '.beckon', 'gate.json'), 'utf8'));
      expect(policy).toMatchObject({ default: 'ask', timeout_seconds: 300, on_timeout: 'deny' });

      // Again: nothing added twice, the policy kept.
      await writeFile(path.join(dir, '.beckon', 'gate.json'), JSON.stringify({ timeout_seconds: 60 }));
      expect((await run([])).stdout).toContain('kept the PreToolUse hook');
      const after = JSON.parse(await readFile(path.join(dir, '.claude', 'settings.json'), 'utf8'));
      expect(after.hooks.PreToolUse).toHaveLength(1);
      expect(JSON.parse(await readFile(path.join(dir, '.beckon', 'gate.json'), 'utf8'))).toEqual({
        timeout_seconds: 60,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const gateRun = (args: string[]): Promise<Run> =>
  finishedRun(spawn(process.execPath, [BIN, 'gate', ...args]));
