/**
 * The sign-in this browser started, so a session arriving by link (a magic link's /verify, a
 * provider's /auth/callback#token=…) is taken at once only when it is the one asked for here.
 * Anything else, such as a link someone sent to sign this browser into their account (login
 * CSRF), or a magic link opened on another device, asks the person first (ConfirmSignIn).
 */
const KEY = 'beckon.sign-in';
/** A magic link lives 15 minutes, a provider flow 10: older starts are forgotten. */
const MAX_AGE_MS = 30 * 60_000;

type Pending = { email?: string; nonce?: string; at: number };

function read(): Pending | null {
  try {
    const pending = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Pending | null;
    return pending && Date.now() - pending.at < MAX_AGE_MS ? pending : null;
  } catch {
    return null;
  }
}

function write(pending: Pending | null) {
  try {
    if (pending) localStorage.setItem(KEY, JSON.stringify(pending));
    else localStorage.removeItem(KEY);
  } catch {
    // Storage refused: every link then asks for confirmation.
  }
}

/** A magic link was asked for this address here. */
export const rememberEmailSignIn = (email: string) =>
  write({ email: email.trim().toLowerCase(), at: Date.now() });

/** Starts a provider sign-in with a nonce the server hands back in the callback's fragment. */
export function providerSignInUrl(provider: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const nonce = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  write({ nonce, at: Date.now() });
  return `/auth/oauth/${provider}?client_state=${nonce}`;
}

export const startedForEmail = (email: string) => read()?.email === email.toLowerCase();

export function startedWithNonce(nonce: string | null): boolean {
  const expected = read()?.nonce;
  return Boolean(nonce && expected && nonce === expected);
}

export const forgetSignIn = () => write(null);
