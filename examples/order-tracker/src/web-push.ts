// "Notify me": this browser's push subscription, made the standard way (the permission asked,
// the page's service worker registered at /tracker/, PushManager.subscribe with the gateway's
// VAPID key) and shaped as the addWebPushTarget mutation takes it. Each way it can fail has its
// own words: the customer learns what to do, not an exception's name.
// With its extension: the gateway's tests read this file too.
import type { WebPushSubscriptionInput } from './gql/graphql.js';

/** The service worker's address and scope: the gateway serves both under /tracker/ (src/server/tracker.ts). */
export const SERVICE_WORKER = { url: 'sw.js', scope: './' } as const;

/** Why this browser could not be subscribed, in the customer's words. */
export const PUSH_PROBLEMS = {
  unsupported: 'This browser cannot show notifications from a web page (it needs a recent browser, and the page served over https).',
  denied: 'Notifications are blocked for this page. Allow them in the browser’s site settings, then press “Notify me” again.',
  dismissed: 'Notifications were not allowed. Press “Notify me” again to be asked again.',
  worker: 'The page could not install its service worker, so this browser cannot be notified. Reload the page and try again.',
  pushService:
    'This browser’s push service could not be reached, so it cannot be notified now. Try again later, or choose e-mail or a webhook.',
  subscription: 'This browser gave a push subscription the gateway cannot use. Choose e-mail or a webhook instead.',
} as const;

export type PushProblem = keyof typeof PUSH_PROBLEMS;

/** The parts of the browser "Notify me" uses (the window's own by default; a test gives its own). */
export interface PushBrowser {
  supported: boolean;
  requestPermission(): Promise<NotificationPermission>;
  register(
    url: string,
    scope: string,
  ): Promise<{
    pushManager: {
      subscribe(options: PushSubscriptionOptionsInit): Promise<{ toJSON(): unknown }>;
      getSubscription(): Promise<{ unsubscribe(): Promise<boolean> } | null>;
    };
  }>;
}

/** The window's own: what this page runs in. */
export function windowPushBrowser(): PushBrowser {
  const supported = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window && window.isSecureContext;
  return {
    supported,
    requestPermission: () => Notification.requestPermission(),
    register: (url, scope) => navigator.serviceWorker.register(url, { scope }).then(() => navigator.serviceWorker.ready),
  };
}

/** A base64url text as bytes (the VAPID key, as `applicationServerKey` takes it). */
function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(
    text
      .replaceAll('-', '+')
      .replaceAll('_', '/')
      .padEnd(Math.ceil(text.length / 4) * 4, '='),
  );
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

const BASE64URL = /^[A-Za-z0-9_-]+=*$/;

/**
 * `PushSubscription.toJSON()` as the mutation takes it; null when it is not that shape (an
 * endpoint URL and both keys). Which endpoints are allowed (https, public addresses) is the
 * gateway's to say: it refuses the others in words.
 */
export function subscriptionInput(json: unknown): WebPushSubscriptionInput | null {
  if (json === null || typeof json !== 'object') return null;
  const { endpoint, keys } = json as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } | null };
  const p256dh = keys?.p256dh;
  const auth = keys?.auth;
  if (typeof endpoint !== 'string' || !URL.canParse(endpoint)) return null;
  if (typeof p256dh !== 'string' || typeof auth !== 'string' || !BASE64URL.test(p256dh) || !BASE64URL.test(auth)) return null;
  return { endpoint, p256dh, auth };
}

/**
 * Subscribes this browser to the gateway's pushes: asks the permission (the browser asks the
 * customer once), installs the service worker, subscribes with the gateway's key. The
 * subscription as the mutation takes it, or why not.
 */
export async function subscribeThisBrowser(
  publicKey: string,
  browser: PushBrowser = windowPushBrowser(),
): Promise<{ subscription: WebPushSubscriptionInput } | { problem: PushProblem }> {
  if (!browser.supported) return { problem: 'unsupported' };
  const permission = await browser.requestPermission().catch((): NotificationPermission => 'denied');
  if (permission === 'denied') return { problem: 'denied' };
  if (permission !== 'granted') return { problem: 'dismissed' };
  let registration: Awaited<ReturnType<PushBrowser['register']>>;
  try {
    registration = await browser.register(SERVICE_WORKER.url, SERVICE_WORKER.scope);
  } catch {
    return { problem: 'worker' };
  }
  const options = { userVisibleOnly: true, applicationServerKey: base64UrlBytes(publicKey) };
  let json: unknown;
  try {
    const subscription = await registration.pushManager.subscribe(options).catch(async (error: unknown) => {
      // Subscribed before with another key (the demo makes its keys anew at each start): that
      // subscription can no longer be sent to, so it is dropped and the browser subscribed afresh.
      if (!(error instanceof DOMException && error.name === 'InvalidStateError')) throw error;
      await (await registration.pushManager.getSubscription())?.unsubscribe();
      return registration.pushManager.subscribe(options);
    });
    json = subscription.toJSON();
  } catch (error) {
    // NotAllowedError: the permission was taken back meanwhile; anything else (AbortError,
    // "push service error"), the browser's push service did not answer.
    return { problem: error instanceof DOMException && error.name === 'NotAllowedError' ? 'denied' : 'pushService' };
  }
  const subscription = subscriptionInput(json);
  return subscription ? { subscription } : { problem: 'subscription' };
}
