import { Field, Input, Label } from '@headlessui/react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, buttonClass } from '../../components/button';
import { controlClass, labelClass } from '../../components/field';
import { ErrorNotice, Notice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { Link } from '../../lib/router';
import { authTrpc } from '../../lib/trpc';
import { passkeysSupported, signInWithPasskey } from '../passkeys/passkey-ceremonies';
import { AuthLayout } from './auth-layout';
import { providerSignInUrl, rememberEmailSignIn } from './pending-sign-in';
import { startSession } from './sign-in';

/** Display names of the external providers (docs/external-sign-in.md). */
const PROVIDERS = { idp_a: 'GitHub', idp_b: 'Google', idp_c: 'Apple' } as const;

function EmailField({
  value,
  onChange,
  error,
  label = 'Email address',
}: {
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  label?: string;
}) {
  return (
    <Field>
      <Label className={labelClass}>{label}</Label>
      <Input
        type="email"
        autoComplete="email"
        value={value}
        invalid={error !== undefined}
        onChange={(event) => onChange(event.target.value)}
        className={controlClass}
      />
    </Field>
  );
}

function MagicLinkForm() {
  const [email, setEmail] = useState('');
  const request = useMutation(authTrpc.accounts.requestMagicLink.mutationOptions());
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rememberEmailSignIn(email);
    request.mutate({ email: email.trim() });
  };
  if (request.data) {
    return (
      <div className="space-y-3">
        <Notice tone="success">{request.data.message}</Notice>
        {request.data.token && (
          <Notice>
            Development mode (no mail server): the link is not emailed.{' '}
            <Link
              to={`/verify?token=${encodeURIComponent(request.data.token)}`}
              className="font-medium underline focus-ring"
            >
              Open the sign-in link
            </Link>
          </Notice>
        )}
        <Button variant="ghost" size="sm" onClick={() => request.reset()}>
          Use another address
        </Button>
      </div>
    );
  }
  return (
    <form noValidate onSubmit={submit} className="space-y-3">
      <EmailField value={email} onChange={setEmail} error={errorBody(request.error)?.fields?.email} />
      {request.error ? <ErrorNotice error={request.error} /> : null}
      <Button type="submit" variant="primary" className="w-full" disabled={request.isPending}>
        Email me a sign-in link
      </Button>
    </form>
  );
}

function DevLoginForm() {
  const [email, setEmail] = useState('');
  const login = useMutation(
    authTrpc.accounts.devLogin.mutationOptions({ onSuccess: (grant) => startSession(grant.token) }),
  );
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        login.mutate({ email: email.trim() });
      }}
      className="space-y-3 rounded-md border border-dashed border-amber-500 bg-amber-50 p-3"
    >
      <p className="text-sm text-amber-950">
        Development sign-in (<code>DEV_LOGIN_ENABLED</code>): any address, no email. Never in production.
      </p>
      <EmailField
        label="Email address (development)"
        value={email}
        onChange={setEmail}
        error={errorBody(login.error)?.fields?.email}
      />
      {login.error ? <ErrorNotice error={login.error} /> : null}
      <Button type="submit" className="w-full" disabled={login.isPending}>
        Sign in without email
      </Button>
    </form>
  );
}

/** Any passkey of this site the device holds signs in at once (the account is the passkey's). */
function PasskeySignIn() {
  const signIn = useMutation({
    mutationFn: signInWithPasskey,
    onSuccess: (grant) => startSession(grant.token),
  });
  if (!passkeysSupported()) return null;
  return (
    <div className="space-y-2">
      <Button className="w-full" onClick={() => signIn.mutate()} disabled={signIn.isPending}>
        {signIn.isPending ? 'Waiting for your passkey…' : 'Sign in with a passkey'}
      </Button>
      {signIn.error ? <ErrorNotice error={signIn.error} /> : null}
    </div>
  );
}

export function LoginPage() {
  // GET /auth/config; an older server without it simply shows the magic link.
  const options = useQuery({ ...authTrpc.accounts.signInOptions.queryOptions(), retry: false });
  const providers = options.data?.providers ?? [];
  return (
    <AuthLayout title="Sign in">
      <MagicLinkForm />
      <PasskeySignIn />
      {providers.length > 0 && (
        <div className="space-y-2">
          <p className="text-center text-xs text-gray-700">or continue with</p>
          {providers.map((provider) => (
            <a
              key={provider}
              href={`/auth/oauth/${provider}`}
              onClick={(event) => {
                // With a nonce the callback recognises as this browser's (pending-sign-in.ts).
                event.preventDefault();
                window.location.assign(providerSignInUrl(provider));
              }}
              className={`${buttonClass()} w-full`}
            >
              {PROVIDERS[provider]}
            </a>
          ))}
        </div>
      )}
      {options.data?.dev_login && <DevLoginForm />}
    </AuthLayout>
  );
}
