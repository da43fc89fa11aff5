// The page: sign in, then the customer's orders at a glance, live, with their history.
import { useMemo, useState } from 'react';
import { createOrderClient, OrderClientError, type OrderClient } from '@order-graph/client';
import { changeLines, dateTime } from './format';
import { Notifications } from './notifications';
import { OrderParts, Progress, Timeline } from './order-card';
import type { TrackerSettings } from './settings';
import { SignIn } from './sign-in';
import { useTrackedOrder } from './tracked-order';

/** The customer's orders, once signed in. */
function Tracker({ client, settings, onSignOut }: { client: OrderClient; settings: TrackerSettings; onSignOut: () => void }) {
  const { view, notes, live, retry } = useTrackedOrder(client, settings.pollIntervalMs);
  const waiting = !view.me && !view.complete;
  return (
    <>
      <div className="bar">
        <p>{view.me ? `Signed in${view.me.firstName ? ` as ${view.me.firstName}` : ''}.` : waiting ? 'Loading your order…' : ''}</p>
        <p className="live">
          {live === 'live'
            ? 'Live: changes show here as they happen.'
            : live === 'connecting'
              ? 'Connecting for live updates…'
              : 'Live updates stopped: sign in again.'}
        </p>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </div>
      <div className="notes" role="status" aria-live="polite">
        {notes.map((note) => (
          <p key={note.key} className="note">
            <strong>Changed {dateTime(note.observedAt)}:</strong> {changeLines(note.changes)}
          </p>
        ))}
      </div>
      {view.failed ? (
        <p className="problem">
          The order could not be loaded: {view.failed}{' '}
          <button type="button" onClick={retry}>
            Try again
          </button>
        </p>
      ) : null}
      {view.me && view.orders.length === 0 ? <p>No orders yet.</p> : null}
      {view.orders.map((order, index) => (
        <article key={order.id} className="order" aria-labelledby={`order-${order.id}`}>
          <h2 id={`order-${order.id}`}>
            {[order.product?.model, order.product?.trim].filter(Boolean).join(' ') || 'Your order'}{' '}
            <span className="muted">· {order.reservationId}</span>
          </h2>
          <Progress status={order.status} rawStatus={order.rawStatus} />
          <OrderParts order={order} index={index} complete={view.complete} errors={view.errors} onRetry={retry} />
          <Timeline order={order} complete={view.complete} />
        </article>
      ))}
      {view.me ? <Notifications client={client} /> : null}
    </>
  );
}

export function App({ settings }: { settings: TrackerSettings }) {
  const [signedIn, setSignedIn] = useState(false);
  // One client per sign-in: its tokens live in this page's memory only, never in storage.
  const [session, setSession] = useState(0);
  // graphql-request takes an absolute URL only; window.fetch is called on window (a bare reference to it throws in some browsers).
  const endpoint = new URL(settings.endpoint, location.href).href;
  const persistedDocuments = settings.persistedDocuments ?? false;
  const client = useMemo(
    () => createOrderClient({ endpoint, persistedDocuments, fetch: (input, init) => window.fetch(input, init) }),
    [endpoint, persistedDocuments, session],
  );

  const signIn = async (username: string, password: string) => {
    try {
      await client.login(username, password);
      setSignedIn(true);
      return null;
    } catch (error) {
      return error instanceof OrderClientError ? `Sign-in refused: ${error.message}` : 'Sign-in failed: the gateway could not be reached.';
    }
  };
  const signOut = () => {
    setSignedIn(false);
    setSession((n) => n + 1);
  };

  return (
    <>
      <header>
        <h1>Order tracker</h1>
      </header>
      <main>
        {signedIn ? <Tracker client={client} settings={settings} onSignOut={signOut} /> : <SignIn demo={settings.demo} onSignIn={signIn} />}
      </main>
    </>
  );
}
