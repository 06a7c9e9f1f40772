import { AGENT_PERMISSIONS, PERMISSION_CATALOG } from '@beckon/contracts/permissions';
import {
  type Answer,
  type Call,
  CHALLENGE,
  describeTarget,
  inPool,
  placeholderInput,
  type Target,
} from './targets';

/**
 * The authentication and permission checks of the sweep, the same for REST and tRPC. Each returns
 * the problems it found (one line per procedure) so one run reports every procedure at once.
 */

type Body = { error?: string; required?: string; fields?: Record<string, string> };
const bodyOf = (a: Answer) => (a.body ?? {}) as Body;
const show = (a: Answer) => `${a.status} ${JSON.stringify(a.body)?.slice(0, 200)}`;
const isPermissionDenied = (a: Answer) => a.status === 403 && bodyOf(a).error === 'permission denied';
/** Refused before the procedure ran (401, 403) or failed inside it (500; a 503 is an answer). */
const stopped = (a: Answer) => a.status === 401 || a.status === 403 || a.status === 500;
/** Independent calls at a time: the sweep waits on HTTP and Postgres, not on this process. */
export const PARALLEL = 4;
export const SESSION_ONLY = "this operation needs a signed-in user's session";

/**
 * No token, and a token nobody issued: a protected procedure answers 401 with the challenge; one
 * documented as public (`protect: false`) answers without a token, and a credential in its path
 * (an inbound webhook's token, an invitation code) that names nothing is a 404.
 */
export async function checkUnauthenticated(call: Call, targets: Target[]): Promise<string[]> {
  const problems: string[] = [];
  const cases = targets.flatMap((t) => [null, 'not-a-token-anyone-issued'].map((token) => ({ t, token })));
  const answers = await inPool(cases, PARALLEL, ({ t, token }) => call(t, token, placeholderInput(t)));
  for (const [i, { t, token }] of cases.entries()) {
    const res = answers[i]!;
    const who = `${describeTarget(t)} ${token ? 'with an unknown token' : 'without a token'}`;
    if (t.protect) {
      const challenge = res.headers.get('www-authenticate');
      if (res.status !== 401 || bodyOf(res).error !== 'unauthorized' || challenge !== CHALLENGE) {
        problems.push(`${who}: ${show(res)}, challenge ${challenge}; expected 401 with the challenge`);
      }
    } else if (res.status === 401 || res.status === 500) {
      problems.push(`${who}: ${show(res)}; a public route (protect: false) must answer without a token`);
    } else if (t.pathParams.length > 0 && res.status !== 404) {
      problems.push(`${who}: ${show(res)}; an unknown credential in the path must be a 404`);
    }
  }
  return problems;
}

/** Tokens of one organization: a fresh one per call, as some calls end their own session. */
export type Sessions = {
  /** A member whose role holds no permission at all. */
  none: () => Promise<string>;
  /** A member whose role holds exactly these permissions. */
  only: (permissions: string[]) => Promise<string>;
};

/**
 * Learns what each procedure requires from the procedures themselves: a role without any
 * permission gets a 403 naming the one it lacks (a permission of the catalog), and a role with
 * exactly that one passes the check. A procedure that lets the empty role through needs none.
 */
export async function derivePermissions(call: Call, targets: Target[], sessions: Sessions) {
  const required = new Map<string, string | null>();
  const problems: string[] = [];
  const guarded = targets.filter((x) => x.protect);
  const probe = async (t: Target) => {
    const denied = await call(t, await sessions.none(), placeholderInput(t));
    const permission = isPermissionDenied(denied) ? (bodyOf(denied).required ?? '') : null;
    const allowed =
      permission === null ? null : await call(t, await sessions.only([permission]), placeholderInput(t));
    return { denied, allowed };
  };
  const answers = await inPool(guarded, PARALLEL, probe);
  for (const [i, t] of guarded.entries()) {
    const { denied, allowed } = answers[i]!;
    const what = describeTarget(t);
    if (denied.status === 401 || denied.status === 500) {
      problems.push(`${what} for a member without permissions: ${show(denied)}`);
      continue;
    }
    if (!isPermissionDenied(denied)) {
      if (denied.status === 403) problems.push(`${what}: 403 without naming a permission: ${show(denied)}`);
      required.set(t.path, null);
      continue;
    }
    const permission = bodyOf(denied).required ?? '';
    if (!(PERMISSION_CATALOG as readonly string[]).includes(permission)) {
      problems.push(`${what}: requires "${permission}", which is not in the permission catalog`);
    }
    required.set(t.path, permission);
    if (!allowed || stopped(allowed)) {
      problems.push(
        `${what} with exactly "${permission}": ${allowed && show(allowed)}; expected past the check`,
      );
    }
  }
  return { required, problems };
}

/**
 * An agent's API key and a third-party client's OAuth token (both acting with the item
 * permissions only): a procedure needing another permission is a 403 naming it, one that needs a
 * person's own session is a 403 saying so, and the others let them through. Returns the
 * procedures that refused the credential for want of a session.
 */
export async function checkAgentCredential(
  call: Call,
  targets: Target[],
  required: Map<string, string | null>,
  token: string,
) {
  const problems: string[] = [];
  const sessionOnly: string[] = [];
  const agent = AGENT_PERMISSIONS as readonly string[];
  const swept = targets.filter((x) => x.protect && required.has(x.path));
  const answers = await inPool(swept, PARALLEL, (t) => call(t, token, placeholderInput(t)));
  for (const [i, t] of swept.entries()) {
    const res = answers[i]!;
    const needs = required.get(t.path) ?? null;
    const what = describeTarget(t);
    if (res.status === 403 && bodyOf(res).error === SESSION_ONLY) {
      sessionOnly.push(t.path);
    } else if (isPermissionDenied(res)) {
      if (bodyOf(res).required !== needs || agent.includes(needs ?? '')) {
        problems.push(`${what}: ${show(res)}; the role derivation says it requires ${needs}`);
      }
    } else if (stopped(res)) {
      problems.push(`${what}: ${show(res)}`);
    } else if (needs !== null && !agent.includes(needs)) {
      problems.push(`${what}: let an agent credential through although it requires ${needs}: ${show(res)}`);
    }
  }
  return { problems, sessionOnly };
}
