import { describe, expect, it } from 'vitest';
import type { Identity, IdentitySource } from '../../auth/identity';
import { AppError } from '../../errors';
import { actsForPerson, approverCheck } from './approvers';

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

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return { http: error.status, body: error.body };
    throw error;
  }
  return null;
};

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
        body: { error: expect.stringContaining('allow_agents') },
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
