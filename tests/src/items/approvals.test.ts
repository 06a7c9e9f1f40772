import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, receiverPool, startTestServer, type TestServer } from '../harness';

type Actor = { type: string; id: string | null };
type Response = {
  by: Actor;
  user_id: string | null;
  values: Record<string, unknown>;
  approves: boolean | null;
};
type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_by: Actor | null;
  approvals: { required: number; approved: number; rejected: number; field: string } | null;
  responses: Response[];
};

let server: TestServer;
let f: Factories;
const receivers = receiverPool();

const FORM = {
  id: 'change',
  fields: [
    { id: 'approve', type: 'yesno', label: 'Approve?' },
    { id: 'why', type: 'text', label: 'Why' },
  ],
};

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

/** An organization with its owner and `count` members, each signed in. */
async function team(count: number) {
  const t = await f.team(server.resource);
  const members = [];
  for (let i = 0; i < count; i++) members.push(await t.join('member'));
  return { ...t, members };
}

const ask = async (
  api: HttpClient,
  approvals: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => {
  const res = await api.post<Item>('/api/items', { title: 'Change #1', form: FORM, approvals, ...extra });
  expect(res.status).toBe(201);
  return res.body;
};
const answer = (api: HttpClient, id: string, values: Record<string, unknown>) =>
  api.post<Item>(`/api/items/${id}/answer`, { values });

describe('creating an item with approvals', () => {
  it('needs a form and a deciding field: 400 with the fields', async () => {
    const { owner } = await team(0);
    const bad = async (body: Record<string, unknown>) =>
      (await owner.post('/api/items', { title: 'q', ...body })).body;
    expect(await bad({ approvals: { required: 2 } })).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { approvals: 'needs a form' },
    });
    expect(await bad({ form: FORM, approvals: { required: 2, field: 'nope' } })).toMatchObject({
      fields: { 'approvals.field': 'unknown field' },
    });
    expect(await bad({ form: FORM, approvals: { required: 2, field: 'why' } })).toMatchObject({
      fields: { 'approvals.field': 'must be a yesno, select or radio field' },
    });
    const choice = {
      id: 'c',
      fields: [
        {
          id: 'verdict',
          type: 'radio',
          label: 'Verdict',
          options: [
            { value: 'go', label: 'Go' },
            { value: 'stop', label: 'Stop' },
          ],
        },
      ],
    };
    expect(await bad({ form: choice, approvals: { required: 2 } })).toMatchObject({
      fields: { 'approvals.field': 'the form has no yesno field: name a select or radio field' },
    });
    expect(await bad({ form: choice, approvals: { required: 2, field: 'verdict' } })).toMatchObject({
      fields: { 'approvals.approve_value': 'Required' },
    });
    expect(
      await bad({ form: choice, approvals: { required: 2, field: 'verdict', approve_value: 'maybe' } }),
    ).toMatchObject({ fields: { 'approvals.approve_value': 'must be one of the field options' } });
    expect(await bad({ form: FORM, approvals: { required: 0 } })).toMatchObject({
      fields: { 'approvals.required': expect.any(String) },
    });
    const created = await ask(owner, { required: 2 });
    expect(created.approvals).toEqual({
      required: 2,
      field: 'approve',
      approve_value: null,
      exclude_creator: true,
      any_rejection_closes: false,
      allow_agents: false,
      allow_timeout_answer: false,
      approved: 0,
      rejected: 0,
    });
  });
});

describe('answering an item with approvals', () => {
  it('stays open while collecting, refuses a second answer, and is answered by the N-th approval', async () => {
    const { owner, members } = await team(3);
    const [a, b, c] = members;
    const callback = await receivers.start();
    const item = await ask(owner, { required: 2 }, { callback_url: callback.url });

    const first = await answer(a!.api, item.id, { approve: true, why: 'fine' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'open', response: null, approvals: { approved: 1 } });
    expect(first.body.responses).toEqual([
      {
        by: { type: 'user', id: a!.id },
        user_id: a!.id,
        values: { approve: true, why: 'fine' },
        approves: true,
        at: expect.any(String),
      },
    ]);
    expect((await answer(a!.api, item.id, { approve: true })).body).toEqual({
      error: 'you have already answered this item',
      code: 'already_answered',
      status: 'open',
    });
    // A rejection is recorded and does not close (any_rejection_closes is off).
    expect((await answer(b!.api, item.id, { approve: false })).body).toMatchObject({
      status: 'open',
      approvals: { approved: 1, rejected: 1 },
    });
    // The deciding field must be answered.
    expect((await answer(c!.api, item.id, { why: 'hmm' })).status).toBe(422);
    const last = await answer(c!.api, item.id, { approve: true, why: 'ok' });
    expect(last.body).toMatchObject({
      status: 'answered',
      response: { approve: true, why: 'ok' },
      answered_by: { type: 'user', id: c!.id },
      approvals: { approved: 2, rejected: 1 },
    });
    expect(last.body.responses.map((r) => [r.user_id, r.approves])).toEqual([
      [a!.id, true],
      [b!.id, false],
      [c!.id, true],
    ]);
    expect((await answer(owner, item.id, { approve: true })).body).toEqual({
      error: 'cannot answer an item that is answered',
      code: 'invalid_status',
      status: 'answered',
    });
    // One callback, for the outcome; the collecting answers are item.updated events.
    const [call] = await callback.waitFor(1);
    expect(JSON.parse(call!.body)).toMatchObject({ event: 'item.answered', status: 'answered' });
    const timeline = await owner.get<Array<{ action?: string }>>(`/api/items/${item.id}/timeline`);
    expect(timeline.body.map((e) => e.action)).toEqual([
      'item.create',
      'item.approve',
      'item.reject',
      'item.answer',
    ]);
  });

  it('refuses the creator when exclude_creator, and one rejection closes when any_rejection_closes', async () => {
    const { owner, members } = await team(2);
    const item = await ask(owner, { required: 2, exclude_creator: true, any_rejection_closes: true });
    expect((await answer(owner, item.id, { approve: true })).body).toEqual({
      error: "the item's creator may not answer it",
      code: 'creator_may_not_answer',
    });
    await answer(members[0]!.api, item.id, { approve: true });
    const rejected = await answer(members[1]!.api, item.id, { approve: false, why: 'risky' });
    expect(rejected.body).toMatchObject({
      status: 'answered',
      response: { approve: false, why: 'risky' },
      answered_by: { type: 'user', id: members[1]!.id },
      approvals: { approved: 1, rejected: 1 },
    });
  });

  it("counts an agent's answer as its key owner's: the same person cannot answer twice", async () => {
    const { owner, members, org } = await team(1);
    const item = await ask(owner, { required: 2, allow_agents: true });
    const key = await f.apiKey(org.id, members[0]!.id);
    expect((await answer(server.resource.as(key.token), item.id, { approve: true })).status).toBe(200);
    expect((await answer(members[0]!.api, item.id, { approve: true })).status).toBe(409);
  });

  it('a select field approves with approve_value', async () => {
    const { owner, members } = await team(2);
    const form = {
      id: 'c',
      fields: [
        {
          id: 'verdict',
          type: 'select',
          label: 'Verdict',
          options: [
            { value: 'go', label: 'Go' },
            { value: 'stop', label: 'Stop' },
          ],
        },
      ],
    };
    const item = (
      await owner.post<Item>('/api/items', {
        title: 'q',
        form,
        approvals: { required: 1, field: 'verdict', approve_value: 'go' },
      })
    ).body;
    expect((await answer(members[0]!.api, item.id, { verdict: 'stop' })).body.status).toBe('open');
    expect((await answer(members[1]!.api, item.id, { verdict: 'go' })).body.status).toBe('answered');
  });

  it('counts a quorum exactly under concurrent answers: 3 of 10 at once, one transition', async () => {
    const { owner, members } = await team(10);
    const item = await ask(owner, { required: 3 });
    const results = await Promise.all(members.map((m) => answer(m.api, item.id, { approve: true })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 409, 409, 409, 409, 409, 409, 409]);
    expect(results.filter((r) => r.status === 200 && r.body.status === 'answered')).toHaveLength(1);
    for (const refused of results.filter((r) => r.status === 409)) {
      expect(refused.body).toEqual({
        error: 'cannot answer an item that is answered',
        code: 'invalid_status',
        status: 'answered',
      });
    }
    const final = (await owner.get<Item>(`/api/items/${item.id}`)).body;
    expect(final.status).toBe('answered');
    expect(final.responses).toHaveLength(3);
    expect(new Set(final.responses.map((r) => r.user_id)).size).toBe(3);
    expect(final.approvals).toMatchObject({ approved: 3 });
    const [events] = await server.database.sql<{ answered: number; updated: number }[]>`
      select count(*) filter (where type = 'item.answered')::int as answered,
             count(*) filter (where type = 'item.updated')::int as updated
        from events where item_id = ${item.id}`;
    expect(events).toEqual({ answered: 1, updated: 2 });
  });

  it('the timeout policy decides over a quorum not reached; the responses so far are kept', async () => {
    const { owner, members } = await team(1);
    const item = await ask(
      owner,
      { required: 2, allow_timeout_answer: true },
      {
        deadline_at: new Date(Date.now() + 1000).toISOString(),
        on_timeout: { action: 'answer', values: { approve: false, why: 'no quorum' } },
      },
    );
    await answer(members[0]!.api, item.id, { approve: true });
    let final: Item | undefined;
    for (let i = 0; i < 200 && final?.status !== 'answered'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      final = (await owner.get<Item>(`/api/items/${item.id}`)).body;
    }
    expect(final).toMatchObject({
      status: 'answered',
      response: { approve: false, why: 'no quorum' },
      answered_by: { type: 'policy', id: null },
      approvals: { approved: 1, rejected: 0 },
    });
    expect(final!.responses.map((r) => r.by.type)).toEqual(['user', 'policy']);
  });
});
