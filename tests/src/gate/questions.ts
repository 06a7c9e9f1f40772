import type { HttpClient } from '../harness';
import { until } from '../sdk/helpers';

/** A gate question as the tests read it. */
export type GateItem = { id: string; title: string; status: string };

/** The gate questions (items tagged `gate`) a person sees, newest first. */
export async function gateItems<T extends GateItem = GateItem>(person: HttpClient): Promise<T[]> {
  const { items } = (await person.get<{ items: Array<T & { tags: string[] }> }>('/api/items?limit=200')).body;
  return items.filter((item) => item.tags.includes('gate'));
}

/** The open gate question whose title starts with `title`, once a gate has asked it. */
export async function openQuestion<T extends GateItem = GateItem>(
  person: HttpClient,
  title: string,
): Promise<T> {
  let found: T | undefined;
  await until(async () => {
    found = (await gateItems<T>(person)).find((i) => i.title.startsWith(title) && i.status === 'open');
    return found !== undefined;
  }, 45_000);
  return found as T;
}
