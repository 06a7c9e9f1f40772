import type { Item } from '../lib/trpc';

const levelStyles: Record<Item['level'], { label: string; badge: string; bar: string }> = {
  info: { label: 'Info', badge: 'bg-sky-100 text-sky-900', bar: 'bg-sky-500' },
  success: { label: 'Success', badge: 'bg-green-100 text-green-900', bar: 'bg-green-600' },
  warning: { label: 'Warning', badge: 'bg-amber-100 text-amber-900', bar: 'bg-amber-500' },
  error: { label: 'Error', badge: 'bg-red-100 text-red-900', bar: 'bg-red-600' },
};

export const levelBar = (level: Item['level']) => levelStyles[level].bar;

const chip = 'inline-flex items-center rounded px-1.5 py-0.5 text-xs font-medium';

export function LevelBadge({ level }: { level: Item['level'] }) {
  return <span className={`${chip} ${levelStyles[level].badge}`}>{levelStyles[level].label}</span>;
}

const statusStyles: Record<Item['status'], string> = {
  open: 'bg-indigo-100 text-indigo-900',
  answered: 'bg-green-100 text-green-900',
  dismissed: 'bg-gray-200 text-gray-800',
  archived: 'bg-gray-200 text-gray-800',
  expired: 'bg-orange-100 text-orange-900',
  withdrawn: 'bg-gray-200 text-gray-800',
};

export const statusLabel = (status: Item['status']) => status.charAt(0).toUpperCase() + status.slice(1);

export function StatusBadge({ status }: { status: Item['status'] }) {
  return <span className={`${chip} ${statusStyles[status]}`}>{statusLabel(status)}</span>;
}

/** Priority 0 to 4, 4 the most urgent (decisions.md §2). */
export const priorityNames = ['Lowest', 'Low', 'Normal', 'High', 'Urgent'] as const;

export function PriorityBadge({ priority }: { priority: number }) {
  const name = priorityNames[priority] ?? String(priority);
  const style =
    priority >= 4
      ? 'bg-red-700 text-white'
      : priority === 3
        ? 'bg-orange-100 text-orange-900'
        : 'bg-gray-100 text-gray-800';
  return (
    <span className={`${chip} ${style}`} title={`Priority ${priority} of 4`}>
      P{priority} {name}
    </span>
  );
}

export function Tag({ name }: { name: string }) {
  return (
    <span className={`${chip} bg-violet-50 text-violet-900 ring-1 ring-inset ring-violet-200`}>{name}</span>
  );
}

export function ChannelBadge({ name }: { name: string }) {
  return <span className={`${chip} bg-teal-50 text-teal-900 ring-1 ring-inset ring-teal-200`}>#{name}</span>;
}
