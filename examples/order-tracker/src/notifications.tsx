// The notifications panel: a message when the order moves, with this page closed. The gateway
// polls the order on the customer's behalf with the refresh token this page hands it once
// (docs/tracker.md#notifications); the customer picks where messages go: this browser (Web
// Push, shown by the page's service worker), the account's own e-mail, or a signed webhook.
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { OrderClient } from '@order-graph/client';
import { dateTime } from './format';
import type { NotificationChannel, TrackerTargetFragment } from './gql/graphql';
import { notificationCalls, SIGN_IN_AGAIN, type NewSecret, type NotificationSettings, type Outcome } from './notification-calls';

/** What the panel shows. */
export interface NotificationsView {
  /** The gateway's answer: null while it is being read, or when it failed (`failed` says why). */
  settings: NotificationSettings | null;
  targets: TrackerTargetFragment[];
  failed: string | null;
  /** The action under way ('push', 'email', 'webhook', `remove:<id>`, `test:<id>`): its button says so, the others wait. */
  busy: string | null;
  /** The last action's outcome, in words. */
  problem: string | null;
  done: string | null;
  /** A webhook's signing secret, just created: shown until the customer says it is kept, never again. */
  secret: NewSecret | null;
  /** No refresh token left to hand over (this sign-in's went to the gateway, which has since let it go): adding needs a new sign-in. */
  needsSignIn: boolean;
}

/** The channels in words, as a customer calls them. */
export const CHANNEL_NAMES: Record<NotificationChannel, string> = { WEB_PUSH: 'Browser', EMAIL: 'E-mail', WEBHOOK: 'Webhook' };

/** A target's state in words: working, failing since when, or turned off and why. */
export function targetState(target: TrackerTargetFragment): string {
  if (target.disabledAt)
    return `Turned off ${dateTime(target.disabledAt)}${target.disabledReason ? `: ${target.disabledReason}` : ''}. Remove it and add it again to use it.`;
  const delivered = target.lastDeliveredAt ? `Last message ${dateTime(target.lastDeliveredAt)}.` : 'No message yet.';
  if (target.failingSince)
    return `${delivered} Failing since ${dateTime(target.failingSince)}: each message is tried again, and a target that keeps failing is turned off.`;
  return delivered;
}

export interface NotificationActions {
  notifyMe(): void;
  emailMe(): void;
  addWebhook(url: string): void;
  remove(id: string): void;
  sendTest(id: string): void;
  reload(): void;
  forgetSecret(): void;
}

function Secret({ secret, onDone }: { secret: NonNullable<NotificationsView['secret']>; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    void navigator.clipboard
      .writeText(secret.secret)
      .then(() => setCopied('Copied.'))
      .catch(() => setCopied('Could not copy: select the secret and copy it yourself.'));
  return (
    <div className="secret" role="region" aria-labelledby="secret-title">
      <h3 id="secret-title">The signing secret of {secret.description}</h3>
      <p>
        <strong>Copy it now: it is not shown again.</strong> Your automation checks each message’s signature with it (Standard Webhooks).
        Lost, it cannot be read back: remove the webhook and add it again.
      </p>
      <p>
        <code className="secret-value">{secret.secret}</code>
      </p>
      <p>
        <button type="button" onClick={copy}>
          Copy secret
        </button>{' '}
        <button type="button" onClick={onDone}>
          I have kept it
        </button>{' '}
        <span role="status">{copied}</span>
      </p>
    </div>
  );
}

function Target({ target, busy, actions }: { target: TrackerTargetFragment; busy: string | null; actions: NotificationActions }) {
  const name = `${CHANNEL_NAMES[target.channel] ?? target.channel}: ${target.description}`;
  return (
    <li
      className="target"
      data-channel={target.channel}
      data-state={target.disabledAt ? 'disabled' : target.failingSince ? 'failing' : 'active'}
    >
      <p>
        <strong>{CHANNEL_NAMES[target.channel] ?? target.channel}</strong> {target.description}
      </p>
      <p className="small">
        Added {dateTime(target.createdAt)}. {targetState(target)}
      </p>
      <p>
        <button type="button" disabled={busy !== null || !!target.disabledAt} onClick={() => actions.sendTest(target.id)}>
          {busy === `test:${target.id}` ? 'Sending…' : 'Send test'}
          <span className="visually-hidden"> to {name}</span>
        </button>{' '}
        <button type="button" disabled={busy !== null} onClick={() => actions.remove(target.id)}>
          {busy === `remove:${target.id}` ? 'Removing…' : 'Remove'}
          <span className="visually-hidden"> {name}</span>
        </button>
      </p>
    </li>
  );
}

function AddTargets({
  view,
  settings,
  actions,
}: {
  view: NotificationsView;
  settings: NotificationSettings;
  actions: NotificationActions;
}) {
  const [url, setUrl] = useState('');
  const has = (channel: NotificationChannel) => settings.channels.includes(channel);
  const full = view.targets.length >= settings.maxTargets;
  const blocked = view.busy !== null || full || view.needsSignIn;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    actions.addWebhook(url.trim());
  };
  return (
    <div className="add-targets">
      {full ? <p>You have {view.targets.length} targets, the most this gateway allows: remove one to add another.</p> : null}
      {view.needsSignIn ? <p>{SIGN_IN_AGAIN}</p> : null}
      <p>
        {has('WEB_PUSH') && settings.webPushPublicKey ? (
          <button type="button" disabled={blocked} onClick={actions.notifyMe}>
            {view.busy === 'push' ? 'Asking this browser…' : 'Notify me'}
          </button>
        ) : (
          <span>Browser notifications are not set up on this gateway.</span>
        )}{' '}
        {has('EMAIL') ? (
          <button type="button" disabled={blocked} onClick={actions.emailMe}>
            {view.busy === 'email' ? 'Adding…' : 'E-mail me'}
          </button>
        ) : (
          <span>E-mail is not set up on this gateway.</span>
        )}
      </p>
      {has('EMAIL') ? (
        <p className="small">“E-mail me” writes to your account’s own address, once the order service says it is verified.</p>
      ) : null}
      {has('WEBHOOK') ? (
        <form className="webhook" onSubmit={submit}>
          <label>
            Webhook URL (for home automation)
            <input
              name="webhook"
              type="url"
              inputMode="url"
              required
              placeholder="https://automation.example/hooks/order"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
            />
          </label>
          <button type="submit" disabled={blocked}>
            {view.busy === 'webhook' ? 'Adding…' : 'Add webhook'}
          </button>
        </form>
      ) : null}
    </div>
  );
}

/** The panel as it stands: off, loading, failed, or the targets and the ways to add one. */
export function NotificationsPanel({ view, actions }: { view: NotificationsView; actions: NotificationActions }) {
  const { settings } = view;
  return (
    <section className="notifications" aria-labelledby="notifications-title" aria-busy={!settings && !view.failed}>
      <h2 id="notifications-title">Notifications</h2>
      {view.failed ? (
        <p className="problem">
          Your notifications could not be loaded: {view.failed}{' '}
          <button type="button" onClick={actions.reload}>
            Try again
          </button>
        </p>
      ) : !settings ? (
        <p>Loading your notifications…</p>
      ) : !settings.enabled ? (
        <p>Notifications are off on this gateway: this page shows changes only while it is open.</p>
      ) : (
        <>
          <p>
            A message when your order moves, even with this page closed. The order is looked at every{' '}
            {settings.pollIntervalSeconds >= 120
              ? `${Math.round(settings.pollIntervalSeconds / 60)} minutes`
              : `${settings.pollIntervalSeconds} seconds`}
            .
          </p>
          {view.targets.length > 0 ? (
            <>
              <h3>Where messages go</h3>
              <ul className="targets">
                {view.targets.map((target) => (
                  <Target key={target.id} target={target} busy={view.busy} actions={actions} />
                ))}
              </ul>
            </>
          ) : (
            <p>No messages are sent to you yet.</p>
          )}
          {view.secret ? <Secret secret={view.secret} onDone={actions.forgetSecret} /> : null}
          {/* Made anew when a target comes or goes: the webhook URL just added is cleared, one refused kept to correct. */}
          <AddTargets key={view.targets.length} view={view} settings={settings} actions={actions} />
        </>
      )}
      <p className="problem" role="alert">
        {view.problem}
      </p>
      <p role="status">{view.done}</p>
    </section>
  );
}

const EMPTY: Omit<NotificationsView, 'needsSignIn'> = {
  settings: null,
  targets: [],
  failed: null,
  busy: null,
  problem: null,
  done: null,
  secret: null,
};

/** The panel's state and actions for the signed-in customer (src/notification-calls.ts does the asking). */
export function useNotifications(client: OrderClient): { view: NotificationsView; actions: NotificationActions } {
  const calls = useMemo(() => notificationCalls(client), [client]);
  const [view, setView] = useState(EMPTY);
  const [reading, setReading] = useState(0);
  const current = useRef(view);
  useEffect(() => {
    current.current = view;
  });

  useEffect(() => {
    let stopped = false;
    void calls.load().then((loaded) => {
      if (stopped) return;
      setView((shown) =>
        'failed' in loaded ? { ...shown, settings: null, failed: loaded.failed } : { ...shown, ...loaded, failed: null },
      );
    });
    return () => {
      stopped = true;
    };
  }, [calls, reading]);

  /** Runs one action: its button busy, the others waiting, then its outcome said and the targets read again. */
  const act = useCallback((busy: string, run: (targets: number) => Promise<Outcome>) => {
    if (current.current.busy) return;
    current.current = { ...current.current, busy };
    setView((shown) => ({ ...shown, busy, problem: null, done: null }));
    void run(current.current.targets.length)
      .catch((): Outcome => ({ problem: 'Something went wrong in this page: reload it and try again.' }))
      .then((outcome) => {
        setView((shown) => ({
          ...shown,
          busy: null,
          ...('problem' in outcome ? { problem: outcome.problem } : { done: outcome.done, secret: outcome.secret ?? shown.secret }),
        }));
        setReading((n) => n + 1);
      });
  }, []);

  const actions: NotificationActions = {
    notifyMe: () => {
      const key = current.current.settings?.webPushPublicKey;
      if (key) act('push', (targets) => calls.addWebPush(targets, key));
    },
    emailMe: () => act('email', (targets) => calls.addEmail(targets)),
    addWebhook: (url) => act('webhook', (targets) => calls.addWebhook(targets, url)),
    remove: (id) => act(`remove:${id}`, (targets) => calls.remove(targets, id)),
    sendTest: (id) => act(`test:${id}`, () => calls.sendTest(id)),
    reload: () => setReading((n) => n + 1),
    forgetSecret: () => setView((shown) => ({ ...shown, secret: null })),
  };
  // Nothing to hand over while the gateway keeps none for the customer: this sign-in's went to it already.
  const needsSignIn = !!view.settings?.enabled && view.targets.length === 0 && !calls.canHandOver;
  return { view: { ...view, needsSignIn }, actions };
}

/** The panel for the signed-in customer. */
export function Notifications({ client }: { client: OrderClient }) {
  const { view, actions } = useNotifications(client);
  return <NotificationsPanel view={view} actions={actions} />;
}
