// The tracker's service worker, served at /tracker/sw.js with the scope /tracker/: shows each
// Web Push message the gateway sends (its notifications: docs/notifications.md), and on a click
// focuses the tracker or opens the message's page. It keeps no cache: the page works as before
// without it. Its behaviour lives in src/notification-message.ts, where it is tested apart from
// the browser; the browser test (test/browser/tracker-notifications.test.ts) pushes to it.
import { openTracker, shownNotification, type WindowClients } from './notification-message';

// The worker's own globals, declared here (the page's compiler settings are a window's, not a worker's).
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface PushEvent extends ExtendableEvent {
  readonly data: { text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  readonly notification: Notification;
}
interface WorkerScope {
  readonly registration: ServiceWorkerRegistration;
  readonly clients: WindowClients & { claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
}
const worker = self as unknown as WorkerScope;

// A new version takes over at once: it holds no state an old page depends on.
worker.addEventListener('install', (event) => event.waitUntil(worker.skipWaiting()));
worker.addEventListener('activate', (event) => event.waitUntil(worker.clients.claim()));

worker.addEventListener('push', (event) => {
  const shown = shownNotification(event.data?.text() ?? null, worker.registration.scope);
  event.waitUntil(
    worker.registration.showNotification(shown.title, {
      body: shown.body,
      ...(shown.tag ? { tag: shown.tag } : {}),
      data: { url: shown.url },
    }),
  );
});

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  event.waitUntil(openTracker(event.notification.data, worker.registration.scope, worker.clients));
});
