import { formatDateTime, formatDuration, useNow } from '../../lib/time';

/** Time left before an item's deadline, ticking every second in its last hour. */
export function Countdown({ deadline, compact = false }: { deadline: string; compact?: boolean }) {
  const due = new Date(deadline).getTime();
  const now = useNow(due - Date.now() < 3600_000 ? 1000 : 30_000);
  const left = due - now;
  const urgent = left < 3600_000;
  const text = left > 0 ? `Due in ${formatDuration(left)}` : 'Deadline passed';
  return (
    <time
      dateTime={deadline}
      title={`Deadline: ${formatDateTime(deadline)}`}
      className={`${urgent ? 'font-semibold text-red-800' : 'text-gray-800'} ${compact ? '' : 'text-sm'}`}
    >
      {text}
      {!compact && <span className="font-normal text-gray-700"> ({formatDateTime(deadline)})</span>}
    </time>
  );
}
