// What the service worker shows for a pushed message and where a click on it leads
// (src/notification-message.ts): the gateway's JSON {title, body, url, key} shown as it says,
// anything else as a generic notice; never a page of another origin.
import { describe, expect, it } from 'vitest';
import { GENERIC_NOTICE, MESSAGE_LIMITS, openTracker, shownNotification, type WindowClients } from '../src/notification-message';

const TRACKER = 'https://orders.example/tracker/';

describe('a pushed message', () => {
  it("the gateway's message shows its title and body, tagged with its key, leading to its page", () => {
    const message = {
      title: 'Order OC-ACBDE: in production',
      body: 'Status: Confirmed → In production',
      url: `${TRACKER}?order=1`,
      key: 'chg_abc',
    };
    expect(shownNotification(JSON.stringify(message), TRACKER)).toEqual({
      title: message.title,
      body: message.body,
      tag: 'chg_abc',
      url: `${TRACKER}?order=1`,
    });
    // A relative URL is the tracker's.
    expect(shownNotification(JSON.stringify({ ...message, url: '/tracker/#x' }), TRACKER).url).toBe(`${TRACKER}#x`);
  });

  it('what is not the expected JSON still shows: the generic notice, leading to the tracker', () => {
    for (const data of [
      null,
      '',
      'not json',
      '[1,2]',
      '"text"',
      '42',
      'null',
      '{}',
      JSON.stringify({ title: 7, body: 'b' }),
      JSON.stringify({ title: '  ' }),
    ]) {
      expect([data, shownNotification(data, TRACKER)]).toEqual([data, { ...GENERIC_NOTICE, tag: undefined, url: TRACKER }]);
    }
    // A key is still a key: the same message sent again replaces its notice.
    expect(shownNotification(JSON.stringify({ key: 'chg_1' }), TRACKER).tag).toBe('chg_1');
  });

  it("another origin's URL, or one that is no URL, leads to the tracker instead; a long message is cut to its bounds", () => {
    for (const url of [
      'https://evil.example/tracker/',
      'javascript:alert(1)',
      '//evil.example/x',
      'http://orders.example/tracker/',
      42,
      null,
    ]) {
      expect([url, shownNotification(JSON.stringify({ title: 't', url }), TRACKER).url]).toEqual([url, TRACKER]);
    }
    const long = shownNotification(
      JSON.stringify({ title: 'T'.repeat(10_000), body: 'B'.repeat(10_000), key: 'K'.repeat(10_000) }),
      TRACKER,
    );
    expect([long.title.length, long.body.length, long.tag!.length]).toEqual([
      MESSAGE_LIMITS.title,
      MESSAGE_LIMITS.body,
      MESSAGE_LIMITS.tag,
    ]);
  });
});

/** The browser's window clients with these tabs open, noting what a click did to them. */
function windows(urls: string[]) {
  const done: string[] = [];
  const clients: WindowClients = {
    matchAll: async () => urls.map((url) => ({ url, focus: async () => done.push(`focus ${url}`) })),
    openWindow: async (url) => done.push(`open ${url}`),
  };
  return { clients, done };
}

describe('a click on the notification', () => {
  it('focuses the tab showing the message’s page, else another tracker tab, never a tab of something else', async () => {
    const some = windows(['https://orders.example/graphql', `${TRACKER}`, `${TRACKER}?order=1`]);
    expect(await openTracker({ url: `${TRACKER}?order=1` }, TRACKER, some.clients)).toEqual({ focused: `${TRACKER}?order=1` });
    expect(await openTracker({ url: `${TRACKER}?order=2` }, TRACKER, some.clients)).toEqual({ focused: TRACKER });
    expect(some.done).toEqual([`focus ${TRACKER}?order=1`, `focus ${TRACKER}`]);
  });

  it('with no tracker tab open, opens the message’s page; another origin’s never, the tracker instead', async () => {
    const none = windows(['https://orders.example/graphql']);
    expect(await openTracker({ url: `${TRACKER}?order=1` }, TRACKER, none.clients)).toEqual({ opened: `${TRACKER}?order=1` });
    expect(await openTracker({ url: 'https://evil.example/' }, TRACKER, none.clients)).toEqual({ opened: TRACKER });
    expect(await openTracker(null, TRACKER, none.clients)).toEqual({ opened: TRACKER });
    expect(none.done).toEqual([`open ${TRACKER}?order=1`, `open ${TRACKER}`, `open ${TRACKER}`]);
  });
});
