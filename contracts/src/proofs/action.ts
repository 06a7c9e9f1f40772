import { jcsDigest } from './jcs';

/**
 * An action an item asks about, as bound to it: what will run (`kind`), with exactly which
 * arguments, under which policy version. Its digest is SHA-256 (hex) over the JCS form of
 * `actionPayload`: what the server stores and the outcome names, and what an agent computes
 * again before acting (`verifyDecision` in the SDK).
 */
export type BindableAction = {
  kind: string;
  args: Record<string, unknown>;
  policy_version?: string | null;
};

/** What the digest covers: a policy version only when there is one. */
export const actionPayload = (action: BindableAction) => ({
  kind: action.kind,
  args: action.args,
  ...(action.policy_version != null ? { policy_version: action.policy_version } : {}),
});

export const actionDigest = (action: BindableAction) => jcsDigest(actionPayload(action));
