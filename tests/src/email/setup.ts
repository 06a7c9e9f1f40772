import { manualClock } from '@beckon/server/clock';
import { Factories, freePort, type HttpClient, startTestServer } from '../harness';
import { startSmtpServer } from '../harness/smtp';

export type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_by: { type: string; id: string } | null;
  answered_via: string | null;
  acked_at: string | null;
};

/** A server whose worker mails through a real SMTP server, with links to its own port. */
export async function startMailingServer(options: { refuse?: (address: string) => number | null } = {}) {
  const smtp = await startSmtpServer(options);
  const port = await freePort();
  const clock = manualClock();
  const server = await startTestServer({
    worker: true,
    clock,
    ports: { resource: port },
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      RESOURCE_URL: `http://127.0.0.1:${port}`,
      APP_URL: 'https://app.beckon.test',
      EMAIL_LINK_TTL_HOURS: '48',
    },
  });
  const f = new Factories(server.database.db);

  /** An organization whose agent creates items, and `person()` for members with mail on. */
  async function team() {
    const team = await f.team(server.resource);
    const key = await f.apiKey(team.org.id, team.user.id);
    const person = async (settings: Record<string, unknown> = { enabled: true }) => {
      const joined = await team.join('member');
      const [user] = await server.database.sql<
        { email: string }[]
      >`select email from users where id = ${joined.id}`;
      const res = await joined.api.put('/api/me/email', settings);
      if (res.status !== 200) throw new Error(`email settings: ${res.status} ${res.text}`);
      return { ...joined, email: user!.email };
    };
    return { ...team, agent: server.resource.as(key.token), person };
  }

  const until = async (condition: () => Promise<boolean> | boolean, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  /** Waits until no mail job is waiting or running (due now): what was to be sent has been. */
  const mailsSettled = () =>
    until(
      async () =>
        (
          await server.database.sql`
            select 1 from graphile_worker.jobs where task_identifier = 'send_email' and run_at <= now()`
        ).length === 0,
    );

  const mailsTo = (address: string) => smtp.messages.filter((m) => m.to.includes(address));

  const ask = async (agent: HttpClient, body: Record<string, unknown>) => {
    const res = await agent.post<Item>('/api/items', body);
    if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
    return res.body;
  };

  return {
    server,
    smtp,
    clock,
    team,
    until,
    mailsSettled,
    mailsTo,
    ask,
    close: async () => {
      await server.close();
      await smtp.close();
    },
  };
}

/** A real HTTP client following a link from a mail, as a browser or a mail scanner would. */
export async function follow(url: string, method: 'GET' | 'POST' = 'GET', body?: string) {
  const response = await fetch(url, {
    method,
    redirect: 'manual',
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
