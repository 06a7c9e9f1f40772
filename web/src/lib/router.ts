import { type AnchorHTMLAttributes, createElement, type MouseEvent, useSyncExternalStore } from 'react';

/** A tiny history router: the dashboard has a handful of routes and no nested layouts. */
const listeners = new Set<() => void>();
const notify = () => {
  for (const listener of listeners) listener();
};
window.addEventListener('popstate', notify);

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const snapshot = () => window.location.href;

export function navigate(to: string, options: { replace?: boolean } = {}) {
  if (options.replace) window.history.replaceState(null, '', to);
  else {
    window.history.pushState(null, '', to);
    window.scrollTo(0, 0);
  }
  notify();
}

export function useLocation(): URL {
  return new URL(useSyncExternalStore(subscribe, snapshot));
}

/** `/items/:id` against a path: the parameters, or null when it does not match. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | null {
  const parts = pattern.split('/');
  const actual = pathname.replace(/\/+$/, '').split('/');
  if (parts.length !== actual.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const value = actual[index] ?? '';
    if (part.startsWith(':')) {
      if (!value) return null;
      params[part.slice(1)] = decodeURIComponent(value);
    } else if (part !== value) return null;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

/** An anchor that navigates without reloading (modified clicks keep the browser's behaviour). */
export function Link({ to, onClick, ...props }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return createElement('a', { ...props, href: to, onClick: handle });
}
