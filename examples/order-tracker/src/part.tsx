// One part of the order (vehicle, pickup…) in its states: still arriving, arrived, failed (with a retry), or not there (and why).
import type { ReactNode } from 'react';
import type { OrderGraphError } from '@order-graph/client';
import { failureWords, stageName } from './format';

/** A part the order's stage has not reached (its `availability`): the stage it comes from. */
export interface NotReached {
  from: string;
  /** The order was cancelled: it will never reach that stage. */
  cancelled: boolean;
}

export interface PartProps {
  title: string;
  /** The order the part belongs to (its id): two orders' parts never share an element id. */
  orderId: string;
  /** The order as its customer names it (its reservation): in the part's name, which is then its own on a page of several orders. */
  orderName: string;
  /** The order's field this part shows, as the API names it (`order` for the order record itself). */
  field: string;
  /** Whether the part is stage-gated (listed in the order's `availability`). */
  gated?: boolean;
  /** Whether the part has no view of its own: laid out from its data. */
  generic?: boolean;
  /** Whether the part's payload has arrived (its field is in the order). */
  arrived: boolean;
  /** The query has ended: a part that has not arrived will not. */
  complete: boolean;
  /** The API's errors for this field of this order. */
  errors: OrderGraphError[];
  /** Set when the order has not reached the part's stage. */
  notReached?: NotReached | undefined;
  /** What to say when the field arrived as null without an error. */
  empty: string;
  /** Reads the order again: offered when the part failed. */
  onRetry?: (() => void) | undefined;
  children: ReactNode | null;
}

/** Why a part that did not fail is not there, as the customer reads it. */
function absence(notReached: NotReached | undefined, empty: string): string {
  if (notReached) return notReached.cancelled ? 'Not for a cancelled order.' : `Available from the “${stageName(notReached.from)}” stage.`;
  return empty;
}

export function Part({
  title,
  orderId,
  orderName,
  field,
  gated = false,
  generic = false,
  arrived,
  complete,
  errors,
  notReached,
  empty,
  onRetry,
  children,
}: PartProps) {
  const id = `part-${orderId}-${field}`;
  const waiting = !arrived && !complete;
  // A value is shown whatever else is said of the part; a failure before "not yet", which it
  // would hide. NOT_AVAILABLE is a stage refusal, "not yet" too (as the CLI reads it).
  const failure = !waiting && !children ? errors.find((error) => error.extensions?.code !== 'NOT_AVAILABLE') : undefined;
  let body: ReactNode = children;
  if (waiting) body = <p className="muted">Loading…</p>;
  else if (failure)
    body = (
      <div className="failed">
        <p className="problem">Could not be loaded: {failureWords(failure)}</p>
        {onRetry ? (
          <button type="button" onClick={onRetry} aria-label={`Try again: ${title}, ${orderName}`}>
            Try again
          </button>
        ) : null}
      </div>
    );
  else if (!children) body = <p className="muted">{absence(notReached, errors.length > 0 ? 'Not available yet.' : empty)}</p>;
  return (
    <section
      className="part"
      aria-labelledby={id}
      aria-busy={waiting}
      data-part={field}
      data-gated={gated || undefined}
      data-generic={generic || undefined}
      data-state={waiting ? 'waiting' : children ? 'shown' : failure ? 'failed' : 'absent'}
    >
      <h3 id={id}>
        {title}
        <span className="visually-hidden">, {orderName}</span>
      </h3>
      {body}
    </section>
  );
}
