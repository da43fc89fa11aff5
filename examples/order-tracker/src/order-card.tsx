// One order at a glance: its stage as a progress line with what comes next, then each part as it arrives.
import { ORDER_STAGES, type OrderGraphError } from '@order-graph/client';
import { changeLines, dateTime, day, money, stageIndex, stageName } from './format';
import { Part } from './part';
import type { TrackedOrder } from './tracked-order';

/** The stages as a line: done, the current one, and what comes next. */
export function Progress({ status }: { status: string }) {
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
          ? `This order is ${stageName(status).toLowerCase()}.`
          : next
            ? `Now: ${stageName(status)}. Next: ${stageName(next)}.`
            : `Now: ${stageName(status)}. Nothing comes after this stage.`}
      </p>
    </div>
  );
}

type Parts = Partial<Pick<Extract<TrackedOrder, { vehicle: unknown }>, 'vehicle'>> &
  Partial<Pick<Extract<TrackedOrder, { pickup: unknown }>, 'pickup'>> &
  Partial<Pick<Extract<TrackedOrder, { estimate: unknown }>, 'estimate'>> &
  Partial<Pick<Extract<TrackedOrder, { payments: unknown }>, 'payments'>> &
  Partial<Pick<Extract<TrackedOrder, { tradeIn: unknown }>, 'tradeIn'>>;

function Row({ label, children }: { label: string; children: string }) {
  return (
    <div className="row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** The order's parts, each from its own deferred payload. */
export function OrderParts({
  order,
  index,
  complete,
  errors,
}: {
  order: TrackedOrder;
  index: number;
  complete: boolean;
  errors: OrderGraphError[];
}) {
  const parts = order as TrackedOrder & Parts;
  const part = (field: keyof Parts) => {
    const gate = order.availability.find((entry) => entry.part === field.toUpperCase());
    return {
      field,
      arrived: field in order,
      complete,
      errors: errors.filter((e) => e.path?.[2] === index && e.path[3] === field),
      notReached: gate && !gate.available ? { from: gate.from, cancelled: order.status === 'CANCELLED' } : undefined,
    };
  };
  const { vehicle, pickup, estimate, payments, tradeIn } = parts;
  return (
    <div className="parts">
      <Part title="Vehicle" {...part('vehicle')} empty="No vehicle assigned yet.">
        {vehicle ? (
          <dl>
            <Row label="Model">{[vehicle.modelYear, vehicle.model, vehicle.trim].filter(Boolean).join(' ')}</Row>
            <Row label="Colours">{[vehicle.exterior, vehicle.interior].filter(Boolean).join(', ') || '—'}</Row>
            <Row label="VIN">{vehicle.vin}</Row>
          </dl>
        ) : null}
      </Part>
      <Part title="Pickup" {...part('pickup')} empty="No pickup centre yet.">
        {pickup ? (
          <dl>
            <Row label="Centre">{pickup.name}</Row>
            <Row label="Address">
              {[pickup.address?.line1, pickup.address?.city, pickup.address?.region].filter(Boolean).join(', ') || '—'}
            </Row>
            <Row label="Pickup date">
              {pickup.earliestPickupDate ? day(pickup.earliestPickupDate) : pickup.available ? 'Ready now' : 'Not set yet'}
            </Row>
          </dl>
        ) : null}
      </Part>
      <Part title="Price" {...part('estimate')} empty="No price estimate yet.">
        {estimate ? (
          <dl>
            <Row label={estimate.isEstimate ? 'Estimated total' : 'Total'}>{money(estimate.total)}</Row>
            <Row label="Paid">{money(estimate.paidTotal)}</Row>
            <Row label="Due">{money(estimate.amountDue)}</Row>
          </dl>
        ) : null}
      </Part>
      <Part title="Payments" {...part('payments')} empty="No payments.">
        {payments && payments.length > 0 ? (
          <ul className="plain">
            {payments.map((p) => (
              <li key={p.id}>
                {money(p.amount)} · {p.status.toLowerCase()} · {dateTime(p.paidAt ?? p.createdAt)}
              </li>
            ))}
          </ul>
        ) : null}
      </Part>
      <Part title="Trade-in" {...part('tradeIn')} empty="No trade-in.">
        {tradeIn ? (
          <dl>
            <Row label="Vehicle">
              {[tradeIn.vehicle?.year, tradeIn.vehicle?.make, tradeIn.vehicle?.model].filter(Boolean).join(' ') || '—'}
            </Row>
            <Row label="Offer">{tradeIn.offer ? money(tradeIn.offer.amount) : 'No offer yet'}</Row>
            <Row label="Offer expires">{dateTime(tradeIn.offer?.expiresAt)}</Row>
            <Row label="Status">{tradeIn.status.toLowerCase().replaceAll('_', ' ')}</Row>
          </dl>
        ) : null}
      </Part>
    </div>
  );
}

/** The order's history, newest first, from its own deferred payload. */
export function Timeline({ order, complete }: { order: TrackedOrder; complete: boolean }) {
  const events = 'history' in order ? order.history : undefined;
  return (
    <section className="timeline" aria-labelledby={`history-${order.id}`} aria-busy={!events && !complete}>
      <h3 id={`history-${order.id}`}>History</h3>
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
