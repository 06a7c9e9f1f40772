import type { AskInput } from '../types';

type Policies = Pick<AskInput, 'on_timeout' | 'approvals'>;

type Fail = (message: string) => Error;

function jsonObject(text: string, name: string, fail: Fail): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {}
  throw fail(`${name} must be a JSON object`);
}

/**
 * `--on-timeout expire|dismiss|answer:{"ok":false}` and `--approvals 2` (or a JSON object such as
 * `{"required":2,"exclude_creator":true}`); the server checks them against the form. `fail` makes
 * the usage error.
 */
export function askPolicies(
  onTimeout: string | undefined,
  approvals: string | undefined,
  fail: Fail,
): Policies {
  const policies: Policies = {};
  if (onTimeout === 'expire' || onTimeout === 'dismiss') policies.on_timeout = { action: onTimeout };
  else if (onTimeout?.startsWith('answer:')) {
    policies.on_timeout = {
      action: 'answer',
      values: jsonObject(onTimeout.slice(7), '--on-timeout answer:', fail),
    };
  } else if (onTimeout !== undefined) {
    throw fail('--on-timeout must be expire, dismiss or answer:<json values>');
  }
  if (approvals !== undefined) {
    policies.approvals = /^\d+$/.test(approvals)
      ? { required: Number(approvals) }
      : (jsonObject(approvals, '--approvals', fail) as Policies['approvals']);
  }
  return policies;
}
