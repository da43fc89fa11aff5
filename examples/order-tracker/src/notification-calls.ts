// What the notifications panel asks of the gateway, apart from React: reading the settings and
// the targets, adding one (handing the refresh token over when the gateway keeps none for the
// customer), removing and testing one; each outcome in the customer's words.
import { OrderClientError, type OrderClient, type OrderGraphError } from '@order-graph/client';
import { failureWords } from './format';
import {
  TrackerAddEmailDocument,
  TrackerAddWebhookDocument,
  TrackerAddWebPushDocument,
  TrackerNotificationsDocument,
  TrackerRemoveTargetDocument,
  TrackerTestTargetDocument,
  type TrackerNotificationsQuery,
  type TrackerTargetFragment,
} from './gql/graphql';
import { PUSH_PROBLEMS, subscribeThisBrowser, type PushBrowser } from './web-push';

export type NotificationSettings = Omit<TrackerNotificationsQuery['notifications'], 'targets'>;

/** A webhook's signing secret, just created. */
export interface NewSecret {
  description: string;
  secret: string;
}

/** What an action came to: why not, or what it did (with a new webhook's secret). */
export type Outcome = { problem: string } | { done: string; secret?: NewSecret };

/** Said when no refresh token is left to hand over. */
export const SIGN_IN_AGAIN =
  'To turn notifications on again, sign out and in again first: the gateway needs a fresh sign-in to follow your order.';

/** Said when the gateway cannot be reached at all. */
const UNREACHABLE = 'The gateway could not be reached: try again.';

/**
 * Why the gateway refused, in words: its own message for what the customer can act on (input
 * refused, a channel not set up, notifications off, e-mail not verified, a URL refused, a limit
 * reached), else what the code means.
 */
export function refusalWords(errors: readonly OrderGraphError[]): string {
  const error = errors[0];
  const code = error?.extensions?.code;
  if (error && (code === 'BAD_USER_INPUT' || code === 'RATE_LIMITED')) return error.message;
  if (code === 'UNAUTHENTICATED') return 'Your sign-in has run out: sign out and in again, then try once more.';
  return error ? `The gateway could not do it: ${failureWords(error)}` : 'The gateway gave no answer.';
}

/** The caller's errors as an outcome, a transport failure included. */
async function outcome(run: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OrderClientError) return { problem: UNREACHABLE };
    throw error;
  }
}

/**
 * The panel's calls for one signed-in client. The refresh token goes to the gateway only when
 * it keeps none for the customer (no target listed): taken out of the client then
 * (client.releaseRefreshToken: the page never renews with it again, the upstream's are
 * single-use) and kept here until an add is accepted, so a refused add hands the same one over
 * at the next try.
 */
export function notificationCalls(client: OrderClient, browser?: PushBrowser) {
  let handover: string | null = null;

  /** Adds a target with `send`, handing the refresh token over when `targets` is 0. */
  const add = (targets: number, send: (refreshToken: string | undefined) => Promise<Outcome>) =>
    outcome(async () => {
      let refreshToken: string | undefined;
      if (targets === 0) {
        handover ??= await client.releaseRefreshToken();
        if (!handover) return { problem: SIGN_IN_AGAIN };
        refreshToken = handover;
      }
      const result = await send(refreshToken);
      // Accepted: the gateway holds it now.
      if ('done' in result && refreshToken) handover = null;
      return result;
    });

  return {
    /** Whether a refresh token is at hand to turn notifications on (this page's, or one a refused add kept). */
    get canHandOver() {
      return handover !== null || !!client.tokens?.refreshToken;
    },

    async load(): Promise<{ settings: NotificationSettings; targets: TrackerTargetFragment[] } | { failed: string }> {
      try {
        const { data, errors } = await client.request(TrackerNotificationsDocument);
        if (!data) return { failed: refusalWords(errors) };
        const { targets, ...settings } = data.notifications;
        return { settings, targets };
      } catch {
        return { failed: UNREACHABLE };
      }
    },

    /** "Notify me": this browser subscribed (its permission asked), then added; the refresh token stays with the page until then. */
    addWebPush: async (targets: number, publicKey: string): Promise<Outcome> => {
      const subscribed = await subscribeThisBrowser(publicKey, browser);
      if ('problem' in subscribed) return { problem: PUSH_PROBLEMS[subscribed.problem] };
      return add(targets, async (refreshToken) => {
        const { data, errors } = await client.request(TrackerAddWebPushDocument, { subscription: subscribed.subscription, refreshToken });
        return data ? { done: 'This browser will show a notification when your order moves.' } : { problem: refusalWords(errors) };
      });
    },

    addEmail: (targets: number) =>
      add(targets, async (refreshToken) => {
        const { data, errors } = await client.request(TrackerAddEmailDocument, { refreshToken });
        return data ? { done: `Messages will go to ${data.addEmailTarget.description}.` } : { problem: refusalWords(errors) };
      }),

    addWebhook: (targets: number, url: string) =>
      add(targets, async (refreshToken) => {
        const { data, errors } = await client.request(TrackerAddWebhookDocument, { url, refreshToken });
        if (!data) return { problem: refusalWords(errors) };
        const { target, secret } = data.addWebhookTarget;
        return { done: `Webhook added (${target.description}).`, secret: { description: target.description, secret } };
      }),

    remove: (targets: number, id: string) =>
      outcome(async () => {
        const { data, errors } = await client.request(TrackerRemoveTargetDocument, { id });
        if (!data) return { problem: refusalWords(errors) };
        if (!data.removeNotificationTarget) return { problem: 'That target was already gone.' };
        return { done: targets === 1 ? 'Removed: no messages are sent to you now.' : 'Removed.' };
      }),

    sendTest: (id: string) =>
      outcome(async () => {
        const { data, errors } = await client.request(TrackerTestTargetDocument, { id });
        if (!data) return { problem: refusalWords(errors) };
        return data.sendTestNotification ? { done: 'A test message is on its way.' } : { problem: 'That target is gone or turned off.' };
      }),
  };
}

export type NotificationCalls = ReturnType<typeof notificationCalls>;
