// Beckon's service worker: shows the pushes the server sends to this browser (Web Push, see
// server/src/push) and opens the item when one is clicked.
self.addEventListener('push', (event) => {
  let push = {};
  try {
    push = event.data ? event.data.json() : {};
  } catch {
    push = { title: event.data ? event.data.text() : 'Beckon' };
  }
  event.waitUntil(
    self.registration.showNotification(push.title || 'Beckon', {
      body: push.body || '',
      tag: push.item_id,
      data: { url: push.url || '/' },
    }),
  );
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || '/', self.location.origin);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      // An item on another origin (APP_URL elsewhere) opens in a new window.
      if (open && url.origin === self.location.origin) {
        await open.focus();
        return open.navigate(url.href);
      }
      return self.clients.openWindow(url.href);
    })(),
  );
});
