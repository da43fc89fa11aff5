// What the service worker (src/sw.ts) does with a pushed message and with a click on it,
// apart from the browser: the pushed text is the gateway's JSON {title, body, url, key}
// (src/notify/channels/web-push.ts), read as untrusted; anything else shows a generic notice.

/** What a notification shows and where its click leads. */
export interface ShownNotification {
  title: string;
  body: string;
  /** The change's key: a message sent again (a retried delivery) replaces its notification rather than adding one. */
  tag: string | undefined;
  /** Where a click leads: a page of this origin (the tracker when the message names none or another origin's). */
  url: string;
}

/** Shown for a message this page cannot read (not JSON, or not the gateway's shape): the customer still hears of it. */
export const GENERIC_NOTICE = { title: 'Your order changed', body: 'Open the order tracker to see what changed.' } as const;

/** The longest title, body and tag shown (a notification truncates far shorter; the bound keeps a hostile message small). */
export const MESSAGE_LIMITS = { title: 200, body: 2_000, tag: 200 } as const;

const text = (value: unknown, limit: number) => (typeof value === 'string' && value.trim() !== '' ? value.slice(0, limit) : undefined);

/** `url` when it is a page of the tracker's origin (relative ones resolved against the tracker), else the tracker itself. */
export function sameOriginUrl(url: unknown, tracker: string): string {
  if (typeof url !== 'string' || !URL.canParse(url, tracker)) return tracker;
  const target = new URL(url, tracker);
  return target.origin === new URL(tracker).origin ? target.href : tracker;
}

/** The notification for a pushed message's text (null: a push with no data), `tracker` being the service worker's scope. */
export function shownNotification(data: string | null, tracker: string): ShownNotification {
  let message: unknown = null;
  try {
    message = data === null ? null : JSON.parse(data);
  } catch {
    // Not JSON: the generic notice.
  }
  const fields = message !== null && typeof message === 'object' && !Array.isArray(message) ? (message as Record<string, unknown>) : {};
  const title = text(fields.title, MESSAGE_LIMITS.title);
  const body = text(fields.body, MESSAGE_LIMITS.body);
  const tag = text(fields.key, MESSAGE_LIMITS.tag);
  if (!title) return { ...GENERIC_NOTICE, tag, url: tracker };
  return { title, body: body ?? '', tag, url: sameOriginUrl(fields.url, tracker) };
}

/** The part of the browser's Clients a click needs (the service worker's `self.clients`). */
export interface WindowClients {
  matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<readonly { url: string; focus(): Promise<unknown> }[]>;
  openWindow(url: string): Promise<unknown>;
}

/**
 * A click on a notification whose data is `data` (as the push handler left it): focuses a tab
 * already showing the tracker (the one on the message's page first), else opens the message's
 * page, never another origin's. Says which it did.
 */
export async function openTracker(
  data: unknown,
  tracker: string,
  clients: WindowClients,
): Promise<{ focused: string } | { opened: string }> {
  const url = sameOriginUrl(data !== null && typeof data === 'object' ? (data as { url?: unknown }).url : undefined, tracker);
  const tabs = (await clients.matchAll({ type: 'window', includeUncontrolled: true })).filter((tab) => tab.url.startsWith(tracker));
  const tab = tabs.find((candidate) => candidate.url === url) ?? tabs[0];
  if (tab) {
    await tab.focus();
    return { focused: tab.url };
  }
  await clients.openWindow(url);
  return { opened: url };
}
