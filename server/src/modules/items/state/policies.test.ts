import type { Form } from '@beckon/contracts/items/form.contract';
import type { ItemResponse } from '@beckon/contracts/items/policies.contract';
import { describe, expect, it } from 'vitest';
import { type Identity, type IdentitySource, POLICY } from '../../../auth/identity';
import { AppError } from '../../../errors';
import { actsForPerson, approverCheck } from './approvers';
import { answerStep, approvalsView, itemPolicies, type StoredApprovals } from './policies';

const form: Form = {
  id: 'f',
  fields: [
    { id: 'ok', type: 'yesno', label: 'OK?' },
    {
      id: 'pick',
      type: 'radio',
      label: 'Pick',
      options: [
        { value: 'go', label: 'Go' },
        { value: 'stop', label: 'Stop' },
      ],
    },
  ],
};
const deadline_at = new Date(Date.now() + 60_000);
const at = new Date('2026-11-23T10:00:00.000Z');
const user = (id: string) => ({ type: 'user' as const, id });
const rule = (overrides: Partial<StoredApprovals> = {}): StoredApprovals => ({
  required: 2,
  field: 'ok',
  approve_value: null,
  exclude_creator: true,
  any_rejection_closes: false,
  allow_agents: false,
  allow_timeout_answer: false,
  creator_user_id: 'creator',
  ...overrides,
});
const answered = (userId: string, approves: boolean): ItemResponse => ({
  by: user(userId),
  user_id: userId,
  values: { ok: approves },
  approves,
  at: at.toISOString(),
});
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { http: error.status, body: error.body };
    throw error;
  }
  return null;
};

describe('itemPolicies', () => {
  it('stores nothing for the defaults, and the defaults filled in for approvals', () => {
    expect(itemPolicies({ form, on_timeout: { action: 'expire' } }, 'u')).toEqual({
      on_timeout: null,
      approvals: null,
    });
    expect(itemPolicies({ form, approvals: { required: 3 } }, 'u').approvals).toEqual(
      rule({ required: 3, creator_user_id: 'u' }),
    );
  });

  it('keeps only the accepted values of an answer policy', () => {
    const { on_timeout } = itemPolicies(
      { form, deadline_at, on_timeout: { action: 'answer', values: { ok: false, pick: '' } } },
      'u',
    );
    expect(on_timeout).toEqual({ action: 'answer', values: { ok: false } });
  });

  it('refuses an answer policy on an item collecting approvals unless the rule allows it', () => {
    const on_timeout = { action: 'answer' as const, values: { ok: true } };
    expect(
      refusal(() => itemPolicies({ form, deadline_at, on_timeout, approvals: { required: 2 } }, 'u')),
    ).toEqual({
      http: 400,
      body: {
        error: 'invalid request',
        code: 'invalid_request',
        fields: { on_timeout: expect.stringContaining('allow_timeout_answer') },
      },
    });
    const allowed = itemPolicies(
      { form, deadline_at, on_timeout, approvals: { required: 2, allow_timeout_answer: true } },
      'u',
    );
    expect(allowed).toMatchObject({ on_timeout, approvals: { allow_timeout_answer: true } });
    const dismiss = { action: 'dismiss' as const };
    expect(
      itemPolicies({ form, deadline_at, on_timeout: dismiss, approvals: { required: 2 } }, 'u'),
    ).toMatchObject({
      on_timeout: dismiss,
    });
  });

  it('refuses an approve_value on a yesno field and requires one on a choice field', () => {
    expect(
      refusal(() => itemPolicies({ form, approvals: { required: 1, approve_value: 'go' } }, 'u')),
    ).toMatchObject({ http: 400, body: { fields: { 'approvals.approve_value': expect.any(String) } } });
    expect(
      itemPolicies({ form, approvals: { required: 1, field: 'pick', approve_value: 'go' } }, 'u').approvals,
    ).toMatchObject({ field: 'pick', approve_value: 'go' });
  });
});

describe('answerStep', () => {
  it('closes at once without a rule, and for the policy whatever the rule', () => {
    expect(answerStep({ approvals: null, responses: [] }, user('a'), 'a', { ok: true }, at).closes).toBe(
      true,
    );
    const step = answerStep({ approvals: rule(), responses: [] }, POLICY, null, { ok: false }, at);
    expect(step).toEqual({
      closes: true,
      response: { by: POLICY, user_id: null, values: { ok: false }, approves: false, at: at.toISOString() },
    });
  });

  it('closes on the required-th approval, rejections not counting', () => {
    const item = { approvals: rule(), responses: [answered('a', true), answered('b', false)] };
    expect(answerStep(item, user('c'), 'c', { ok: true }, at).closes).toBe(true);
    expect(answerStep(item, user('c'), 'c', { ok: false }, at).closes).toBe(false);
    const closing = { ...item, approvals: rule({ any_rejection_closes: true }) };
    expect(answerStep(closing, user('c'), 'c', { ok: false }, at).closes).toBe(true);
  });

  it('a choice field approves with its approve_value only', () => {
    const item = { approvals: rule({ required: 1, field: 'pick', approve_value: 'go' }), responses: [] };
    expect(answerStep(item, user('a'), 'a', { pick: 'stop' }, at)).toMatchObject({
      closes: false,
      response: { approves: false },
    });
    expect(answerStep(item, user('a'), 'a', { pick: 'go' }, at).closes).toBe(true);
  });

  it('refuses a second answer, the excluded creator, and a blank deciding field', () => {
    const item = { approvals: rule(), responses: [answered('a', false)] };
    expect(refusal(() => answerStep(item, user('a'), 'a', { ok: true }, at))).toEqual({
      http: 409,
      body: { error: 'you have already answered this item', code: 'already_answered', status: 'open' },
    });
    expect(refusal(() => answerStep(item, user('creator'), 'creator', { ok: true }, at))).toEqual({
      http: 403,
      body: { error: "the item's creator may not answer it", code: 'creator_may_not_answer' },
    });
    expect(refusal(() => answerStep(item, user('b'), 'b', {}, at))).toEqual({
      http: 422,
      body: {
        error: 'validation failed',
        code: 'validation_failed',
        fields: { ok: 'required: it decides the approval' },
      },
    });
  });

  it('the view counts people, not the policy', () => {
    const policy: ItemResponse = { ...answered('x', true), by: POLICY, user_id: null };
    expect(approvalsView(rule(), [answered('a', true), answered('b', false), policy])).toMatchObject({
      approved: 1,
      rejected: 1,
    });
  });

  it('the view shows the flags an older stored rule lacks as false', () => {
    const { allow_agents: _a, allow_timeout_answer: _t, ...older } = rule();
    expect(approvalsView(older, [])).toMatchObject({ allow_agents: false, allow_timeout_answer: false });
  });
});

const identity = (source: IdentitySource, extra: Partial<Identity> = {}): Identity => ({
  userId: 'u',
  orgId: 'o',
  agentId: null,
  source,
  clientId: null,
  credentialId: 'c',
  role: 'member',
  permissions: ['items.write'],
  ...extra,
});
const session = identity('session');
const oauthClient = identity('session', { clientId: 'client-1' });
const apiKey = identity('api_key', { agentId: 'agent-1' });
const inbound = identity('inbound_webhook');

describe('actsForPerson', () => {
  it('is true for a dashboard session, a mail link and a linked Slack user only', () => {
    expect(actsForPerson(session)).toBe(true);
    expect(actsForPerson(identity('email_link'))).toBe(true);
    expect(actsForPerson(identity('slack_link'))).toBe(true);
    expect(actsForPerson(oauthClient)).toBe(false);
    expect(actsForPerson(apiKey)).toBe(false);
    expect(actsForPerson(inbound)).toBe(false);
  });
});

describe('approverCheck', () => {
  it('lets people and the service in, and checks nothing without an approvals rule', () => {
    expect(approverCheck({}, session)).toEqual({});
    expect(approverCheck({}, null)).toEqual({});
    expect(approverCheck(null, apiKey)).toEqual({});
  });

  it('refuses an agent with 403 unless the rule allows agents, then says so for the audit entry', () => {
    for (const agent of [apiKey, oauthClient, inbound]) {
      expect(refusal(() => approverCheck({ allow_agents: false }, agent))).toEqual({
        http: 403,
        body: { error: expect.stringContaining('allow_agents'), code: 'agent_may_not_answer' },
      });
      expect(refusal(() => approverCheck({}, agent))?.http).toBe(403);
    }
    expect(approverCheck({ allow_agents: true }, apiKey)).toEqual({ allow_agents: true });
    expect(approverCheck({ allow_agents: true }, oauthClient)).toEqual({
      allow_agents: true,
      client_id: 'client-1',
    });
  });
});
