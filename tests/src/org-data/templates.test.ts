// Longer than 300 lines: each case checks its exact error body (the sentence and its code).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Template = {
  id: string;
  name: string;
  description: string;
  fields: Record<string, unknown>;
  created_at: string;
  updated_at: string;
};
type Item = Record<string, unknown> & { id: string };
type Invalid = { error: string; fields: Record<string, string> };

let server: TestServer;
let owner: HttpClient;
let member: HttpClient;
let viewer: HttpClient;
let other: HttpClient;
let channelId: string;

const FORM = {
  id: 'approve',
  fields: [{ id: 'ok', type: 'yesno', label: 'Approve?', required: true }],
};

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  const orgId = account.org.id;
  owner = server.resource.as(account.token);
  const [memberUser, viewerUser] = [await f.user(), await f.user()];
  await f.member(orgId, memberUser.id, 'member');
  await f.member(orgId, viewerUser.id, 'viewer');
  member = server.resource.as((await f.session(memberUser.id, orgId)).token);
  viewer = server.resource.as((await f.session(viewerUser.id, orgId)).token);
  other = server.resource.as((await f.account('owner')).token);
  channelId = (await owner.post<{ id: string }>('/api/channels', { name: 'deploys', mode: 'open' })).body.id;
});
afterAll(() => server?.close());

const upsert = async (body: Record<string, unknown>, client = owner) => {
  const res = await client.post<Template>('/api/templates', body);
  expect(res.status).toBe(200);
  return res.body;
};

describe('templates', () => {
  it('creates a template (200) and lists it', async () => {
    const created = await upsert({
      name: 'deploy-approval',
      description: 'Ask before a deploy',
      fields: {
        title: 'Deploy?',
        message: 'A deploy is waiting',
        level: 'warning',
        priority: 3,
        channel_id: channelId,
        tags: ['deploy'],
        form: FORM,
        metadata: { team: 'platform' },
      },
    });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'deploy-approval',
      description: 'Ask before a deploy',
      fields: {
        title: 'Deploy?',
        message: 'A deploy is waiting',
        level: 'warning',
        priority: 3,
        channel_id: channelId,
        tags: ['deploy'],
        form: FORM,
        metadata: { team: 'platform' },
      },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.created_at).toBe(created.updated_at);
    const list = await viewer.get<Template[]>('/api/templates');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created]);
  });

  it('creates items from a template: the template fills what the request leaves out', async () => {
    const res = await owner.post<Item>('/api/items', { template: 'deploy-approval' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Deploy?',
      message: 'A deploy is waiting',
      level: 'warning',
      priority: 3,
      channel_id: channelId,
      channel: 'deploys',
      tags: ['deploy'],
      form: FORM,
      metadata: { team: 'platform' },
      status: 'open',
    });
    const got = await owner.get<Item>(`/api/items/${res.body.id}`);
    expect(got.body).toEqual(res.body);
  });

  it('lets the request win field by field', async () => {
    const res = await owner.post<Item>('/api/items', {
      template: 'deploy-approval',
      title: 'Deploy api v2?',
      level: 'error',
      priority: 0,
      tags: [],
      metadata: { run: 7 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Deploy api v2?',
      level: 'error',
      priority: 0,
      tags: [],
      metadata: { run: 7 }, // replaced, not merged
      message: 'A deploy is waiting',
      channel: 'deploys',
      form: FORM,
    });
  });

  it('applies the item defaults to what neither the request nor the template gives', async () => {
    await upsert({ name: 'bare', fields: { message: 'from template' } });
    const res = await owner.post<Item>('/api/items', { template: 'bare', title: 'Hi' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Hi',
      message: 'from template',
      level: 'info',
      priority: 2,
      tags: [],
      metadata: {},
      channel: null,
      form: null,
    });
  });

  it('keeps a deadline and callback URL of a template', async () => {
    const deadline = new Date(Date.now() + 3600_000).toISOString();
    const saved = await upsert({
      name: 'timed',
      fields: { title: 'Timed', deadline_at: deadline, callback_url: 'https://example.com/hook' },
    });
    expect(saved.fields).toEqual({
      title: 'Timed',
      deadline_at: deadline,
      callback_url: 'https://example.com/hook',
    });
    const res = await owner.post<Item>('/api/items', { template: 'timed' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ deadline_at: deadline, callback_url: 'https://example.com/hook' });
  });

  it('refuses an unknown template, and a template and request without a title', async () => {
    const unknown = await owner.post('/api/items', { template: 'nope', title: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { template: 'unknown template' },
    });
    const noTitle = await owner.post('/api/items', { template: 'bare' });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { title: 'Required' },
    });
    const neither = await owner.post('/api/items', { level: 'info' });
    expect(neither.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { title: 'Required' },
    });
    // A template of another organization is unknown here.
    await upsert({ name: 'theirs', fields: { title: 'Theirs' } }, other);
    const foreign = await owner.post('/api/items', { template: 'theirs' });
    expect(foreign.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { template: 'unknown template' },
    });
  });

  it('replaces a template posted again under the same name (200, same id)', async () => {
    const first = await upsert({
      name: 'replace-me',
      description: 'v1',
      fields: { title: 'One', level: 'error' },
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await upsert({ name: 'replace-me', fields: { title: 'Two' } });
    expect(second).toEqual({
      id: first.id,
      name: 'replace-me',
      description: '',
      fields: { title: 'Two' },
      created_at: first.created_at,
      updated_at: expect.any(String),
    });
    expect(second.updated_at > first.updated_at).toBe(true);
    const item = await owner.post<Item>('/api/items', { template: 'replace-me' });
    expect(item.body).toMatchObject({ title: 'Two', level: 'info' });
    const named = (await owner.get<Template[]>('/api/templates')).body.filter((t) => t.name === 'replace-me');
    expect(named).toHaveLength(1);
  });

  it('answers 400 naming each bad field, template fields included', async () => {
    const res = await owner.post('/api/templates', {
      name: 'Bad Name',
      fields: { level: 'loud', priority: 9, titel: 'typo', template: 'nested', callback_url: 'ftp://x' },
      extra: true,
    });
    expect(res.status).toBe(400);
    const body = res.body as Invalid;
    expect(body.error).toBe('invalid request');
    expect(Object.keys(body.fields).sort()).toEqual(
      [
        'extra',
        'fields.callback_url',
        'fields.level',
        'fields.priority',
        'fields.template',
        'fields.titel',
        'name',
      ].sort(),
    );
    expect(body.fields['fields.titel']).toBe('unknown field');
    expect(body.fields['fields.template']).toBe('unknown field');

    const missing = await owner.post('/api/templates', {});
    expect(Object.keys((missing.body as Invalid).fields).sort()).toEqual(['fields', 'name']);
    const badForm = await owner.post('/api/templates', {
      name: 'bad-form',
      fields: { form: { id: 'f', fields: [{ id: 'x', type: 'select', label: 'X' }] } },
    });
    expect(Object.keys((badForm.body as Invalid).fields)).toEqual(['fields.form.fields.0.options']);
    const theirChannel = (await other.post<{ id: string }>('/api/channels', { name: 'x', mode: 'open' })).body
      .id;
    const foreignChannel = await owner.post('/api/templates', {
      name: 'chan',
      fields: { channel_id: theirChannel },
    });
    expect(foreignChannel.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { 'fields.channel_id': 'unknown channel' },
    });
    const names = (await owner.get<Template[]>('/api/templates')).body.map((t) => t.name);
    expect(names).not.toContain('bad-form');
    expect(names).not.toContain('chan');
  });

  it('deletes a template, answering it, and 404s when there is none', async () => {
    const created = await upsert({ name: 'short-lived', fields: { title: 'Bye' } });
    const deleted = await owner.delete<Template>('/api/templates/short-lived');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual(created);
    const again = await owner.delete('/api/templates/short-lived');
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'not found', code: 'not_found' });
    expect((await owner.post('/api/items', { template: 'short-lived' })).status).toBe(400);
  });

  it('needs channels.manage to create, replace or delete', async () => {
    for (const client of [member, viewer]) {
      const create = await client.post('/api/templates', { name: 'denied', fields: {} });
      expect(create.status).toBe(403);
      expect(create.body).toEqual({
        error: 'permission denied',
        code: 'permission_denied',
        required: 'channels.manage',
      });
      const del = await client.delete('/api/templates/deploy-approval');
      expect(del.body).toEqual({
        error: 'permission denied',
        code: 'permission_denied',
        required: 'channels.manage',
      });
      expect((await client.get('/api/templates')).status).toBe(200);
    }
    const names = (await owner.get<Template[]>('/api/templates')).body.map((t) => t.name);
    expect(names).toContain('deploy-approval');
    expect(names).not.toContain('denied');
    // A member can still create items from a template (items.write).
    expect((await member.post('/api/items', { template: 'deploy-approval' })).status).toBe(201);
  });

  it('keeps organizations apart: another one sees nothing and deletes nothing', async () => {
    const theirs = (await other.get<Template[]>('/api/templates')).body.map((t) => t.name);
    expect(theirs).toEqual(['theirs']);
    expect((await other.delete('/api/templates/deploy-approval')).status).toBe(404);
    // The same name in another organization is another template.
    const mine = (await owner.get<Template[]>('/api/templates')).body.find(
      (t) => t.name === 'deploy-approval',
    );
    const same = await upsert({ name: 'deploy-approval', fields: { title: 'Other org' } }, other);
    expect(same.id).not.toBe(mine?.id);
    const after = (await owner.get<Template[]>('/api/templates')).body.find(
      (t) => t.name === 'deploy-approval',
    );
    expect(after).toEqual(mine);
  });
});
