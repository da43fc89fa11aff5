// One part of the order (vehicle, pickup…) in its three states: still arriving, arrived, or not there (and why).
import type { ReactNode } from 'react';
import type { OrderGraphError } from '@order-graph/client';
import { stageName } from './format';

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
  children: ReactNode | null;
}

/** Why a part is not there, as the customer reads it. */
function absence(errors: OrderGraphError[], notReached: NotReached | undefined, empty: string): string {
  if (notReached) return notReached.cancelled ? 'Not for a cancelled order.' : `Available from the “${stageName(notReached.from)}” stage.`;
  if (errors.length > 0) return 'Not available right now: try again later.';
  return empty;
}

export function Part({
  title,
  orderId,
  orderName,
  field,
  gated = false,
  arrived,
  complete,
  errors,
  notReached,
  empty,
  children,
}: PartProps) {
  const id = `part-${orderId}-${field}`;
  const waiting = !arrived && !complete;
  return (
    <section
      className="part"
      aria-labelledby={id}
      aria-busy={waiting}
      data-part={field}
      data-gated={gated || undefined}
      data-state={waiting ? 'waiting' : children ? 'shown' : 'absent'}
    >
      <h3 id={id}>
        {title}
        <span className="visually-hidden">, {orderName}</span>
      </h3>
      {waiting ? <p className="muted">Loading…</p> : (children ?? <p className="muted">{absence(errors, notReached, empty)}</p>)}
    </section>
  );
}
