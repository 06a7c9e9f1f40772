import { can } from '@beckon/contracts/permissions';
import { memberIdentity } from '../auth/member-identity';
import { AppError } from '../errors';
import { actOnItem } from '../modules/items/operations/act-on-item';
import type { RpcContext } from './rpc';

/**
 * Answers an item as the person behind the request's credential, from their own MCP client (a
 * form elicitation or the MCP App): the same operation as every answer (the form's validation,
 * approvals, audit, callbacks and webhooks), recorded with `answered_via: "mcp"`. The person must
 * still be a member whose role may answer (`items.write`); an agent key acts for its creator.
 */
export async function answerAsRequester(ctx: RpcContext, itemId: string, values: unknown): Promise<void> {
  const person = await memberIdentity(
    ctx.deps.sql,
    { orgId: ctx.identity.orgId, userId: ctx.identity.userId },
    'mcp_elicitation',
    ctx.identity.credentialId,
  );
  if (!person || !can(person.permissions, 'items.write')) throw AppError.permissionDenied('items.write');
  await actOnItem(ctx.deps, person, ctx.identity.orgId, itemId, { action: 'answer', values, via: 'mcp' });
}
