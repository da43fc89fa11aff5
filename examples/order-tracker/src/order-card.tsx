// One order at a glance: its stage as a progress line with what comes next, then each part as it arrives.
import { ORDER_STAGES, type OrderGraphError } from '@order-graph/client';
import { changeLines, dateTime, stageIndex, stageName } from './format';
import { Part } from './part';
import { ANY_VIEW, OrderFacts, PART_VIEWS } from './part-views';
import { orderCards } from './parts';
import type { TrackedOrder } from './tracked-order';

/** The stages as a line: done, the current one, and what comes next. */
export function Progress({ status, rawStatus }: { status: string; rawStatus: string }) {
  const at = stageIndex(status);
  const next = at >= 0 ? ORDER_STAGES[at + 1] : undefined;
  return (
    <div className="progress">
      <ol aria-label="Order stages">
        {ORDER_STAGES.map((stage, i) => (
          <li key={stage} className={i < at ? 'done' : i === at ? 'current' : 'todo'} aria-current={i === at ? 'step' : undefined}>
            <span className="dot" aria-hidden="true" />
            <span className="label">{stageName(stage)}</span>
          </li>
        ))}
      </ol>
      <p className="next">
        {at < 0
          ? `This order is ${stageName(status === 'UNKNOWN' ? rawStatus : status).toLowerCase()}.`
          : next
            ? `Now: ${stageName(status)}. Next: ${stageName(next)}.`
            : `Now: ${stageName(status)}. Nothing comes after this stage.`}
      </p>
    </div>
  );
}

/**
 * The order's parts, each from its own deferred payload: the order record, then a card per
 * part (orderCards: each stage-gated part its `availability` lists, each other object or list
 * the query selects), with its own view or laid out from its data. A failed part offers
 * `onRetry`, which reads the order again.
 */
export function OrderParts({
  order,
  index,
  complete,
  errors,
  onRetry,
}: {
  order: TrackedOrder;
  index: number;
  complete: boolean;
  errors: OrderGraphError[];
  onRetry: () => void;
}) {
  const values = order as TrackedOrder & Record<string, unknown>;
  const part = (field: string) => ({
    orderId: order.id,
    orderName: order.reservationId,
    field,
    arrived: field in order,
    complete,
    errors: errors.filter((e) => e.path?.[2] === index && e.path[3] === field),
    onRetry,
  });
  return (
    <div className="parts">
      <Part title="Order" {...part('order')} arrived empty="">
        <OrderFacts order={order} />
      </Part>
      {orderCards(order.availability).map(({ field, title, gate, selected }) => {
        const view = PART_VIEWS[field] ?? ANY_VIEW;
        const value = values[field];
        const none = value === null || value === undefined || (Array.isArray(value) && value.length === 0);
        const empty = !selected
          ? 'Not shown on this page.'
          : (view.empty ?? (gate ? `No ${title.toLowerCase()} yet.` : `No ${title.toLowerCase()}.`));
        const notReached = !gate || gate.available ? undefined : { from: gate.from, cancelled: order.status === 'CANCELLED' };
        return (
          <Part
            key={field}
            title={view.title ?? title}
            gated={!!gate}
            generic={view === ANY_VIEW}
            {...part(field)}
            notReached={notReached}
            empty={empty}
          >
            {none ? null : <view.Facts value={value as never} />}
          </Part>
        );
      })}
    </div>
  );
}

/** The order's history, newest first, from its own deferred payload. */
export function Timeline({ order, complete }: { order: TrackedOrder; complete: boolean }) {
  const events = 'history' in order ? order.history : undefined;
  return (
    <section className="timeline" aria-labelledby={`history-${order.id}`} aria-busy={!events && !complete}>
      <h3 id={`history-${order.id}`}>
        History<span className="visually-hidden">, {order.reservationId}</span>
      </h3>
      {!events ? (
        <p className="muted">{complete ? 'The history is not available right now.' : 'Loading…'}</p>
      ) : events.length === 0 ? (
        <p className="muted">Nothing recorded yet.</p>
      ) : (
        <ol className="events">
          {events.map((event) => (
            <li key={event.cursor} className="event">
              <time dateTime={event.observedAt}>{dateTime(event.observedAt)}</time>
              <span>{event.changes.length === 0 ? 'First seen by the tracker' : changeLines(event.changes)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
