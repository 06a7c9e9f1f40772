import { useSyncExternalStore } from 'react';

/** The session token, kept in localStorage and sent as a bearer token. */
const KEY = 'beckon.token';
/** Where to go after signing in (e.g. an invitation), kept across the magic link's round trip. */
const NEXT_KEY = 'beckon.next';

const listeners = new Set<() => void>();

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage refused (private mode quota): the session lasts as long as the page.
  }
}

let current = read(KEY);
const notify = () => {
  for (const listener of listeners) listener();
};

// Another tab signed out or switched organization: follow it.
window.addEventListener('storage', (event) => {
  if (event.key !== KEY) return;
  current = event.newValue;
  notify();
});

export const getToken = () => current;

export function setToken(token: string | null) {
  current = token;
  write(KEY, token);
  notify();
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

export const useToken = () => useSyncExternalStore(subscribe, getToken);

export const rememberNext = (path: string) => write(NEXT_KEY, path);

/** The remembered destination (only same-origin paths), forgotten once read. */
export function takeNext(): string {
  const next = read(NEXT_KEY);
  write(NEXT_KEY, null);
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}
