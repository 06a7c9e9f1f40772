import { canonicalize } from '@beckon/contracts/proofs/jcs';
import type { Item } from '../../lib/trpc';

/**
 * The action the answer decides, exactly as bound: its kind, policy version, its arguments in
 * their canonical (RFC 8785) form, the very text the digest covers, and the digest itself.
 */
export function BoundAction({ item, className }: { item: Item; className: string }) {
  const { action } = item;
  if (!action) return null;
  return (
    <section className={`${className} space-y-2`} aria-labelledby="action-heading" data-testid="bound-action">
      <h2 id="action-heading" className="text-base font-semibold text-gray-900">
        Action to decide
      </h2>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-gray-700">Kind</dt>
        <dd className="font-mono text-gray-900">{action.kind}</dd>
        {action.policy_version !== null && (
          <>
            <dt className="text-gray-700">Policy</dt>
            <dd className="font-mono text-gray-900">{action.policy_version}</dd>
          </>
        )}
      </dl>
      <pre className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-gray-50 p-2 font-mono text-xs text-gray-900">
        {canonicalize(action.args)}
      </pre>
      <p className="break-all text-xs text-gray-700">
        Digest (SHA-256): <code data-testid="action-digest">{action.digest}</code>
      </p>
    </section>
  );
}
