import { formatDateTime } from '../../lib/time';
import type { Form, Item } from '../../lib/trpc';
import { shown } from './answer/answer-view';
import { namedIn, sentenceStart } from './names';

type Response = Item['responses'][number];

/** The declared answer in words: "Deploy?: No, Note: auto". */
function describeValues(form: Form | null, values: Record<string, unknown>): string {
  const fields = form?.fields ?? [];
  const known = fields.filter((f) => f.id in values).map((f) => `${f.label}: ${shown(f, values[f.id])}`);
  const other = Object.keys(values).filter((id) => !fields.some((f) => f.id === id));
  return [...known, ...other.map((id) => `${id}: ${JSON.stringify(values[id])}`)].join(', ');
}

/** What happens at the deadline, beside the countdown: "At the deadline: answers "Deploy?: No"". */
export function TimeoutPolicy({ item }: { item: Item }) {
  if (!item.deadline_at || item.status !== 'open') return null;
  const policy = item.on_timeout;
  const text =
    policy.action === 'answer'
      ? `answers “${describeValues(item.form, policy.values)}”${item.approvals ? ' in place of the approvers' : ''}`
      : policy.action === 'dismiss'
        ? 'is dismissed'
        : 'expires';
  return (
    <p className="text-sm text-gray-800" data-testid="timeout-policy">
      At the deadline: {text}
    </p>
  );
}

const who = (item: Item, response: Response, myId: string | undefined) =>
  response.user_id && response.user_id === myId ? 'You' : sentenceStart(namedIn(item.names, response.by));

/** Approvals so far: how many of how many, and each response in order (who, what, when). */
export function Approvals({ item, myId }: { item: Item; myId: string | undefined }) {
  const { approvals } = item;
  if (!approvals) return null;
  const rules = [
    approvals.exclude_creator && 'not the creator',
    approvals.any_rejection_closes && 'one rejection closes it',
    approvals.allow_agents && 'agents may answer too, each as its owner',
  ].filter(Boolean);
  return (
    <section aria-labelledby="approvals-heading" className="space-y-2">
      <h3 id="approvals-heading" className="text-sm font-semibold text-gray-900">
        Approvals: {approvals.approved} of {approvals.required}
        {approvals.rejected > 0 && `, ${approvals.rejected} rejected`}
      </h3>
      {rules.length > 0 && <p className="text-xs text-gray-700">Distinct people; {rules.join('; ')}.</p>}
      {item.responses.length > 0 && (
        <ol className="space-y-1 text-sm" aria-label="Responses">
          {item.responses.map((response) => (
            <li key={`${response.by.type}:${response.by.id}:${response.at}`} className="text-gray-900">
              <span className="font-medium">{who(item, response, myId)}</span>{' '}
              {response.approves === true
                ? 'approved'
                : response.approves === false
                  ? 'rejected'
                  : 'answered'}{' '}
              <time dateTime={response.at} className="text-xs text-gray-700">
                {formatDateTime(response.at)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The current person's response to an item collecting approvals, if they gave one. */
export const myResponse = (item: Item, myId: string | undefined) =>
  item.approvals && myId ? item.responses.find((r) => r.user_id === myId) : undefined;
