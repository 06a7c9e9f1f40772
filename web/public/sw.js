// Beckon's service worker: shows the pushes the server sends to this browser (Web Push, see
// server/src/modules/push), answers from a notification's action buttons where the item allows
// it, and opens the item when a notification is clicked.

/** A push answers from the lock screen when it carries every one of its choices as a button. */
function answerable(push) {
  const most = self.Notification?.maxActions ?? 2;
  return Array.isArray(push.actions) && push.answer && push.actions.length <= most;
}

/**
 * Shows a push. Every push of an item has the item's tag, so the one that follows a decision
 * (`closed`) replaces the one that asked, quietly and without its buttons.
 */
function showPush(push) {
  const buttons = !push.closed && answerable(push);
  return self.registration.showNotification(push.title || 'Beckon', {
    body: push.body || '',
    tag: push.item_id,
    silent: Boolean(push.closed),
    actions: buttons ? push.actions.map(({ action, title }) => ({ action, title })) : [],
    data: {
      url: push.url || '/',
      item_id: push.item_id,
      ...(buttons ? { actions: push.actions, answer: push.answer } : {}),
    },
  });
}

self.addEventListener('push', (event) => {
  let push = {};
  try {
    push = event.data ? event.data.json() : {};
  } catch {
    push = { title: event.data ? event.data.text() : 'Beckon' };
  }
  event.waitUntil(showPush(push));
});

async function openPage(href) {
  const url = new URL(href || '/', self.location.origin);
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
  // An item on another origin (APP_URL elsewhere) opens in a new window.
  if (open && url.origin === self.location.origin) {
    await open.focus();
    return open.navigate(url.href);
  }
  return self.clients.openWindow(url.href);
}

/**
 * Posts the pressed action with the notification's token (POST /api/push/answer) and says how it
 * went in the notification's place. False when the page is the better place: the token expired,
 * the person may no longer answer, or the network failed.
 */
async function answerFromNotification(notification, index) {
  const { answer, item_id: tag, url } = notification.data;
  let response;
  try {
    response = await fetch(answer.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: answer.token, choice: index }),
    });
  } catch {
    return false;
  }
  const body = await response.json().catch(() => ({}));
  const said = response.ok
    ? `${body.status === 'open' ? 'Your approval counts' : 'Answered'}: ${body.answer}`
    : response.status === 409
      ? body.error || 'Already answered'
      : null;
  if (said === null) return false;
  await self.registration.showNotification(notification.title, {
    body: said,
    tag,
    silent: true,
    data: { url },
  });
  return true;
}

/** A click: an action button answers in place; the notification itself (or a failed answer) opens the item. */
async function handleNotificationClick(notification, action) {
  const data = notification.data || {};
  const index = action && data.answer ? (data.actions || []).findIndex((a) => a.action === action) : -1;
  if (index >= 0 && (await answerFromNotification(notification, index))) return;
  return openPage(data.url);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(handleNotificationClick(event.notification, event.action));
});
