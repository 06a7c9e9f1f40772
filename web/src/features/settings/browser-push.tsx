import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button } from '../../components/button';
import { ErrorNotice } from '../../components/notice';
import { trpc } from '../../lib/trpc';

type State = 'checking' | 'on' | 'off' | 'blocked';

const supported = () => 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

/** The VAPID public key (base64url) as the bytes PushManager wants. */
function keyBytes(base64url: string): ArrayBuffer {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0)).buffer;
}

const currentSubscription = async () =>
  (await navigator.serviceWorker.getRegistration('/sw.js'))?.pushManager.getSubscription() ?? null;

/**
 * Pushes to this browser: the service worker (`/sw.js`) shows them; turning them on asks for
 * permission, subscribes with the server's VAPID key and registers the subscription.
 */
export function BrowserPush() {
  const config = useQuery(trpc.push.config.queryOptions());
  const register = useMutation(trpc.push.register.mutationOptions());
  const unregister = useMutation(trpc.push.unregister.mutationOptions());
  const [state, setState] = useState<State>('checking');
  useEffect(() => {
    if (!supported()) return;
    void currentSubscription().then((subscription) =>
      setState(Notification.permission === 'denied' ? 'blocked' : subscription ? 'on' : 'off'),
    );
  }, []);
  const turnOn = useMutation({
    mutationFn: async (vapidKey: string) => {
      if ((await Notification.requestPermission()) !== 'granted') {
        setState('blocked');
        throw new Error('Notifications are blocked for this site: allow them in the browser settings.');
      }
      const registration = await navigator.serviceWorker.register('/sw.js');
      await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(vapidKey),
      });
      await register.mutateAsync({ device_token: JSON.stringify(subscription), platform: 'webpush' });
    },
    onSuccess: () => setState('on'),
  });
  const turnOff = useMutation({
    mutationFn: async () => {
      const subscription = await currentSubscription();
      if (!subscription) return;
      await unregister.mutateAsync({ device_token: JSON.stringify(subscription) });
      await subscription.unsubscribe();
    },
    onSuccess: () => setState('off'),
  });

  if (!supported()) {
    return (
      <p className="text-sm text-gray-800">
        This browser cannot receive pushes; the inbox still updates live.
      </p>
    );
  }
  const vapidKey = config.data?.webpush.enabled ? config.data.webpush.vapid_public_key : null;
  if (config.data && !vapidKey) {
    return <p className="text-sm text-gray-800">Browser pushes are not set up on this server.</p>;
  }
  return (
    <div className="flex flex-wrap items-center gap-3">
      <p className="text-sm text-gray-900" role="status">
        {state === 'on'
          ? 'Pushes reach this browser.'
          : state === 'blocked'
            ? 'Notifications are blocked for this site in the browser.'
            : 'This browser gets no pushes.'}
      </p>
      {state === 'on' ? (
        <Button disabled={turnOff.isPending} onClick={() => turnOff.mutate()}>
          Turn off in this browser
        </Button>
      ) : (
        <Button
          variant="primary"
          disabled={!vapidKey || state === 'checking' || turnOn.isPending}
          onClick={() => vapidKey && turnOn.mutate(vapidKey)}
        >
          Turn on in this browser
        </Button>
      )}
      {turnOn.error ? <ErrorNotice error={turnOn.error} className="w-full" /> : null}
      {turnOff.error ? <ErrorNotice error={turnOff.error} className="w-full" /> : null}
    </div>
  );
}
