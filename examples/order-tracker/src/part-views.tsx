// What each part of an order shows once it has arrived: every field the page's query selects.
// A part with a view of its own labels each for what it is (an option code as exterior,
// interior or wheels, a payment by its fee); any other is laid out from its data (AnyValue).
import type { ReactNode } from 'react';
import { dateTime, day, feeTypeName, fieldWords, money, percent, valueText, words } from './format';
import { ORDER_SELECTION } from './query';
import type { TrackedOrder } from './tracked-order';

/** A deferred part's value, once its payload has arrived. */
type PartValue<K extends string> = NonNullable<Extract<TrackedOrder, Record<K, unknown>>[K]>;
type Money = { amount: string; currencyCode: string };

export function Row({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div className={className ? `row ${className}` : 'row'}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

const text = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '—' : String(value));

/** An option code with its words when the gateway has them ("Big Sur Blue (BSB)"), else the code as it is. */
const coded = (code: string | null | undefined, label: string | null | undefined) => (code && label ? `${label} (${code})` : text(code));

/** An amount with its exact value beside the words (`<data value>`), and the estimate field it comes from. */
function Amount({ of, value, minus = false }: { of: string; value: Money | null | undefined; minus?: boolean }) {
  if (!value) return <>—</>;
  return (
    <data value={value.amount} data-field={of}>
      {minus ? `−${money(value)}` : money(value)}
    </data>
  );
}

/** The order record's values said elsewhere on the page (its heading, its stage line) or by a line of their own below. */
const RECORD_SHOWN = ['id', 'reservationId', 'status', 'rawStatus', 'updatedAt', 'delivered'];

/** The order record itself: the product and the build as ordered, its codes named, its state, and any other value the query selects on it. */
export function OrderFacts({ order }: { order: TrackedOrder }) {
  const values = order as TrackedOrder & Record<string, unknown>;
  const more = ORDER_SELECTION.filter((field) => !field.fields && !RECORD_SHOWN.includes(field.name));
  return (
    <dl>
      <Row label="Model">{coded(order.product?.model, order.product?.modelLabel)}</Row>
      <Row label="Trim">{coded(order.product?.trim, order.product?.trimLabel)}</Row>
      <Row label="Exterior">{coded(order.configuration?.exterior, order.configuration?.exteriorLabel)}</Row>
      <Row label="Interior">{coded(order.configuration?.interior, order.configuration?.interiorLabel)}</Row>
      <Row label="Wheels">{coded(order.configuration?.wheel, order.configuration?.wheelLabel)}</Row>
      {order.rawStatus !== order.status ? <Row label="Status code">{order.rawStatus}</Row> : null}
      <Row label="Delivered">{order.delivered ? 'Yes' : 'Not yet'}</Row>
      <Row label="Last changed">{dateTime(order.updatedAt)}</Row>
      {more.map(({ name }) => (
        <Row key={name} label={fieldWords(name)}>
          <AnyValue value={values[name]} />
        </Row>
      ))}
    </dl>
  );
}

function VehicleFacts({ value: vehicle }: { value: PartValue<'vehicle'> }) {
  return (
    <dl>
      <Row label="Model year">{text(vehicle.modelYear)}</Row>
      <Row label="Model">{coded(vehicle.model, vehicle.modelLabel)}</Row>
      <Row label="Trim">{coded(vehicle.trim, vehicle.trimLabel)}</Row>
      <Row label="Exterior">{coded(vehicle.exterior, vehicle.exteriorLabel)}</Row>
      <Row label="Interior">{coded(vehicle.interior, vehicle.interiorLabel)}</Row>
      <Row label="Wheels">{coded(vehicle.wheel, vehicle.wheelLabel)}</Row>
      <Row label="VIN">{vehicle.vin}</Row>
    </dl>
  );
}

function PickupFacts({ value: pickup }: { value: PartValue<'pickup'> }) {
  const { line1, city, region, postalCode } = pickup.address ?? {};
  return (
    <dl>
      <Row label="Centre">{pickup.name}</Row>
      <Row label="Address">{[line1, city, [region, postalCode].filter(Boolean).join(' ')].filter(Boolean).join(', ') || '—'}</Row>
      <Row label="Pickup date">{pickup.earliestPickupDate ? day(pickup.earliestPickupDate) : 'Not set yet'}</Row>
      <Row label="Booking">{pickup.available === null ? '—' : pickup.available ? 'Open' : 'Not open yet'}</Row>
    </dl>
  );
}

type Line = { code: string; description: string | null; amount: Money };

/** A fee, tax or credit line of the estimate, under its total. */
function Lines({
  of,
  lines,
  minus = false,
  label,
}: {
  of: string;
  lines: readonly Line[];
  minus?: boolean;
  label?: (line: Line, i: number) => string;
}) {
  return lines.map((line, i) => (
    <Row key={`${of}.${i}`} className="line" label={label?.(line, i) ?? line.description ?? words(line.code)}>
      <Amount of={`${of}.${i}.amount`} value={line.amount} minus={minus} />
    </Row>
  ));
}

/**
 * The price breakdown, every amount of the estimate: price, options, each fee and tax with their
 * totals, each credit taken off, then what is paid and due. The trade-in's credit is one of the
 * credits (its TRADE_IN_CREDIT line), so the query leaves `tradeInCredit` out: a row of its own
 * showed it twice, the second not taken off.
 */
function PriceFacts({ value: estimate }: { value: PartValue<'estimate'> }) {
  const taxLabel = (line: Line, i: number) => {
    const rate = estimate.taxes[i]?.rate;
    const name = line.description ?? words(line.code);
    return rate === null || rate === undefined ? name : `${name} (${percent(rate)})`;
  };
  return (
    <>
      <dl className="amounts">
        <Row label="Vehicle price">
          <Amount of="vehiclePrice" value={estimate.vehiclePrice} />
        </Row>
        <Row label="Options">
          <Amount of="optionsTotal" value={estimate.optionsTotal} />
        </Row>
        <Row label="Fees">
          <Amount of="feesTotal" value={estimate.feesTotal} />
        </Row>
        <Lines of="fees" lines={estimate.fees} />
        <Row label="Taxes">
          <Amount of="taxTotal" value={estimate.taxTotal} />
        </Row>
        <Lines of="taxes" lines={estimate.taxes} label={taxLabel} />
        <Row label="Credits">{estimate.credits.length === 0 ? 'None' : ''}</Row>
        <Lines of="credits" lines={estimate.credits} minus />
        <Row className="sum" label={estimate.isEstimate ? 'Estimated total' : 'Total'}>
          <Amount of="total" value={estimate.total} />
        </Row>
        <Row label="Paid">
          <Amount of="paidTotal" value={estimate.paidTotal} />
        </Row>
        <Row className="sum" label="Due">
          <Amount of="amountDue" value={estimate.amountDue} />
        </Row>
      </dl>
      <p className="muted small">{estimate.calculatedAt ? `Worked out ${dateTime(estimate.calculatedAt)}.` : null}</p>
    </>
  );
}

/** Each payment with the fee it is for, its amount and state, how and when it was made. */
function PaymentsList({ value: payments }: { value: PartValue<'payments'> }) {
  return (
    <ul className="plain payments">
      {payments.map((p) => (
        <li key={p.id}>
          <span>
            {feeTypeName(p.feeType)}: <strong>{money(p.amount)}</strong>, {p.status.toLowerCase()}
          </span>
          <span className="muted">
            {[p.method ? words(p.method) : null, p.paidAt ? `paid ${dateTime(p.paidAt)}` : `made ${dateTime(p.createdAt)}`]
              .filter(Boolean)
              .join(', ')}
          </span>
        </li>
      ))}
    </ul>
  );
}

function TradeInFacts({ value: tradeIn }: { value: PartValue<'tradeIn'> }) {
  return (
    <dl>
      <Row label="Vehicle">{[tradeIn.vehicle?.year, tradeIn.vehicle?.make, tradeIn.vehicle?.model].filter(Boolean).join(' ') || '—'}</Row>
      <Row label="Offer">{tradeIn.offer ? money(tradeIn.offer.amount) : 'No offer yet'}</Row>
      <Row label="Offer expires">{dateTime(tradeIn.offer?.expiresAt)}</Row>
      <Row label="Net credit">{money(tradeIn.netCredit)}</Row>
      <Row label="Status">{tradeIn.status.toLowerCase().replaceAll('_', ' ')}</Row>
    </dl>
  );
}

const isMoney = (value: object): value is Money =>
  typeof (value as { amount?: unknown }).amount === 'string' && typeof (value as { currencyCode?: unknown }).currencyCode === 'string';

/**
 * A value of any shape laid out from its data, for a part with no view of its own: an object as
 * a label/value list (each field under its name, in the query's order), a list as a list of
 * such, money in its currency, a time in the reader's locale, an enum value in words.
 */
export function AnyValue({ value }: { value: unknown }): ReactNode {
  if (Array.isArray(value))
    return value.length === 0 ? (
      'None'
    ) : (
      <ul className="plain items">
        {value.map((item, i) => (
          <li key={i}>
            <AnyValue value={item} />
          </li>
        ))}
      </ul>
    );
  if (value === null || typeof value !== 'object') return valueText(value as string | number | boolean | null | undefined);
  if (isMoney(value)) return money(value);
  return (
    <dl>
      {Object.entries(value)
        .filter(([key]) => key !== '__typename')
        .map(([key, inner]) => (
          <Row key={key} label={fieldWords(key)}>
            <AnyValue value={inner} />
          </Row>
        ))}
    </dl>
  );
}

/** How a part is shown: its title and its words for none when they are not its field's, and the view of its value. */
export interface PartView {
  title?: string;
  empty?: string;
  Facts: (props: { value: never }) => ReactNode;
}

/** The parts with a view of their own; any other part the page shows is laid out by AnyValue. */
export const PART_VIEWS: Record<string, PartView | undefined> = {
  vehicle: { empty: 'No vehicle assigned yet.', Facts: VehicleFacts },
  pickup: { empty: 'No pickup centre yet.', Facts: PickupFacts },
  estimate: { title: 'Price', empty: 'No price estimate yet.', Facts: PriceFacts },
  payments: { empty: 'No payments.', Facts: PaymentsList },
  tradeIn: { title: 'Trade-in', empty: 'No trade-in.', Facts: TradeInFacts },
};

export const ANY_VIEW: PartView = { Facts: AnyValue };
