import {
  Factories,
  type FakeSlack,
  type HttpClient,
  signedInteraction,
  startFakeSlack,
  startTestServer,
  type TestServer,
} from '../harness';

export const APP = { clientId: '111.222', clientSecret: 'slack-client-secret' };
export const SIGNING_SECRET = 'slack-signing-secret-of-the-app';

export type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_by: { type: string; id: string } | null;
  answered_via: string | null;
};
export type Block = {
  type: string;
  elements?: { action_id?: string; value?: string; text?: { text: string } }[];
};

/** A server with Slack configured against a fake Slack, and the job worker running. */
export async function startSlackServer() {
  const fake = await startFakeSlack(APP);
  const server = await startTestServer({
    worker: true,
    env: {
      SLACK_CLIENT_ID: APP.clientId,
      SLACK_CLIENT_SECRET: APP.clientSecret,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_TOKEN_KEY: 'a-test-key-for-slack-bot-tokens-at-rest',
      SLACK_API_URL: fake.url,
    },
  });
  return { fake, server, f: new Factories(server.database.db) };
}

export async function onPlan(server: TestServer, orgId: string, code: string) {
  await server.database.sql`
    update subscriptions set plan_id = (select id from plans where code = ${code}) where org_id = ${orgId}`;
}

/** The `name=value` of the cookie an answer sets (what the browser sends back), or ''. */
export const cookieOf = (res: { headers: Headers }) =>
  (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

/**
 * Slack's redirect back after an install or a Sign in with Slack, followed by hand (the answer
 * is a redirect), from a browser holding `cookie` (the one the start of the flow set).
 */
export async function oauthReturn(server: TestServer, query: Record<string, string>, cookie = '') {
  const res = await fetch(`${server.resource.baseUrl}/webhooks/slack/oauth?${new URLSearchParams(query)}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  return {
    status: res.status,
    location: res.headers.get('location') ?? '',
    setCookie: res.headers.get('set-cookie'),
  };
}

/** Starts an install in the dashboard: Slack's authorize URL, its state, and the browser's cookie. */
export async function startInstall(api: HttpClient) {
  const install = await api.post<{ url: string }>('/api/slack/install');
  if (install.status !== 200) throw new Error(`install: ${install.status}`);
  const url = install.body.url;
  return { url, state: new URL(url).searchParams.get('state') ?? '', cookie: cookieOf(install) };
}

/** Connects a workspace of the fake to the organization the way a person does it. */
export async function connect(
  server: TestServer,
  fake: FakeSlack,
  api: HttpClient,
  team: { id: string; name: string; channels: Record<string, string>; users?: Record<string, string> },
) {
  const workspace = fake.workspace(team.id, team.name, team.channels, team.users);
  const { state, cookie } = await startInstall(api);
  return oauthReturn(server, { code: workspace.installCode(), state }, cookie);
}

/**
 * Links `slackUser` of the connected workspace to the person of `api` the way they do it: the
 * dashboard starts Sign in with Slack, they sign in at Slack as that user, and Slack sends the
 * same browser back. Answers where the browser lands.
 */
export async function linkSlack(
  server: TestServer,
  fake: FakeSlack,
  api: HttpClient,
  team: string,
  slackUser: string,
) {
  const start = await api.post<{ url: string }>('/api/slack/links');
  if (start.status !== 200) throw new Error(`link: ${start.status} ${start.text}`);
  const url = start.body.url;
  const code = fake.signInCode(team, slackUser, url);
  const state = new URL(url).searchParams.get('state') ?? '';
  return oauthReturn(server, { code, state }, cookieOf(start));
}

/** Posts an interaction signed as Slack signs it (or as told). */
export async function interact(
  server: TestServer,
  payload: object,
  options: { secret?: string; timestamp?: number; tamper?: boolean } = {},
) {
  const signed = signedInteraction(options.secret ?? SIGNING_SECRET, payload, options.timestamp);
  const res = await fetch(`${server.resource.baseUrl}/webhooks/slack/interactions`, {
    method: 'POST',
    headers: signed.headers,
    body: options.tamper ? signed.body.replace('block_actions', 'block_actionz') : signed.body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** The buttons of a posted or updated message, by their text. */
export function buttons(blocks: unknown): Record<string, { action_id: string; value?: string }> {
  const found: Record<string, { action_id: string; value?: string }> = {};
  for (const block of (blocks ?? []) as Block[]) {
    for (const element of block.elements ?? []) {
      if (element.action_id && element.text)
        found[element.text.text] = { action_id: element.action_id, value: element.value };
    }
  }
  return found;
}

/** A click on a message's button, as Slack reports it. */
export const click = (
  team: string,
  user: string,
  channel: string,
  action: { action_id: string; value?: string },
) => ({
  type: 'block_actions',
  team: { id: team },
  user: { id: user, team_id: team },
  channel: { id: channel },
  trigger_id: `trigger-${Math.random()}`,
  actions: [{ ...action, type: 'button' }],
});

/** Polls `read` until `done` holds of its value (or fails after `timeoutMs`); returns the value. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
