import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

/** Shift swaps through the API: what is refused (the browser test swaps from the timeline). */

type Person = { id: string; api: HttpClient };
type ErrorBody = { code: string; fields?: Record<string, string>; spans?: string[] };

let server: TestServer;
let owner: Person;
let ada: Person;
let grace: Person;
let stranger: string;
let schedule: string;

const DAY = 86_400_000;
const midnight = (offset: number) =>
  new Date(Math.floor(Date.now() / DAY) * DAY + offset * DAY).toISOString();
const day = (offset: number) => ({ starts_at: midnight(offset), ends_at: midnight(offset + 1) });

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const org = await f.team(server.resource);
  owner = { id: org.user.id, api: org.owner };
  [ada, grace] = [await org.join('member'), await org.join('member')];
  stranger = (await f.team(server.resource)).user.id;
  // Daily turns from today: Ada on even days, Grace on odd ones.
  schedule = (
    await owner.api.post<{ id: string }>('/api/schedules', {
      name: 'rota',
      time_zone: 'UTC',
      layers: [
        {
          members: [
            { type: 'user', id: ada.id },
            { type: 'user', id: grace.id },
          ],
          start: `${midnight(0).slice(0, 16)}`,
          turn: { unit: 'day', count: 1 },
        },
      ],
    })
  ).body.id;
});
afterAll(async () => {
  await server?.close();
});

const swap = (person: Person, body: Record<string, unknown>) =>
  person.api.post<ErrorBody>(`/api/schedules/${schedule}/swaps`, body);

describe('shift swaps', () => {
  it('refuses spans that are not wholly each person’s (409), someone outside and oneself (400)', async () => {
    const notMine = await swap(ada, { with_user_id: grace.id, mine: day(1), theirs: day(2) });
    expect(notMine.status).toBe(409);
    expect(notMine.body).toMatchObject({ code: 'not_on_call', spans: ['mine', 'theirs'] });
    const straddling = await swap(ada, {
      with_user_id: grace.id,
      mine: { starts_at: midnight(2), ends_at: midnight(4) },
      theirs: day(1),
    });
    expect(straddling.body).toMatchObject({ code: 'not_on_call', spans: ['mine'] });
    const outsider = await swap(ada, { with_user_id: stranger, mine: day(2), theirs: day(1) });
    expect(outsider.body.fields).toEqual({ with_user_id: 'unknown user' });
    const self = await swap(ada, { with_user_id: ada.id, mine: day(2), theirs: day(4) });
    expect(self.body.fields).toEqual({ with_user_id: 'must be someone else' });
    const missing = await ada.api.post<ErrorBody>(`/api/schedules/${stranger}/swaps`, {
      with_user_id: grace.id,
      mine: day(2),
      theirs: day(1),
    });
    expect(missing.status).toBe(404);
  });

  it('gives each person the other’s span, as two overrides', async () => {
    const res = await swap(ada, { with_user_id: grace.id, mine: day(2), theirs: day(1) });
    expect(res.status).toBe(201);
    const onCall = async (at: string) =>
      (
        await owner.api.get<{ user_id: string }>(
          `/api/schedules/${schedule}/on-call?at=${encodeURIComponent(at)}`,
        )
      ).body.user_id;
    expect(await onCall(midnight(1))).toBe(ada.id);
    expect(await onCall(midnight(2))).toBe(grace.id);
  });
});
