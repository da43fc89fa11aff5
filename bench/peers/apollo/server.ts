/**
 * The benchmark's Apollo peer: what a user would write instead of the gateway, Apollo Server 5
 * with `@apollo/datasource-rest`, done the way Apollo's documentation teaches and not tuned.
 * The project's own SDL (`schema/*.graphql`) and its enums, resolvers for the whole-order query
 * only, data sources made per request with the caller's token, `startStandaloneServer`. The
 * calls are the gateway's declarations (bench/declarations.ts: the contract's hosts, paths and
 * parameters, which Order field takes which call); what it writes by hand is the mapping of
 * upstream values to the schema's, as an Apollo user would.
 * Upstream waves: `me`, then `me.orders`, then the per-order calls.
 * Environment: the five upstream URLs (AUTH_URL, ...), APOLLO_PORT (default 0).
 * Prints one JSON line `{"url": ...}` once listening; exits 0 on SIGTERM/SIGINT.
 */
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { knownEnumValues, loadTypeDefs } from '../../../src/graph/sdl.js';
import { HOSTS, ORDER_STATUSES, type HostName, type OperationName } from '../../../src/upstream/contract.js';
import { callParams, CUSTOMER_FIELDS, hostOf, PER_ORDER_FIELDS, STAGE_BOUND, type PerOrderField } from '../../declarations.js';
import {
  UpstreamAPI,
  type Amount,
  type Estimate,
  type Order,
  type OrderAddress,
  type Payment,
  type PickupCenter,
  type PostalAddress,
  type PriceLine,
  type Product,
  type TradeIn,
  type User,
  type VehicleDetails,
} from './data-sources.js';

const urls = {} as Record<HostName, string>;
for (const name of HOSTS) {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`apollo peer: ${name} is not set\n`);
    process.exit(1);
  }
  urls[name] = value;
}

const typeDefs = loadTypeDefs().join('\n');

/** A data source per upstream host: each call goes through its operation's host. */
interface Context {
  dataSources: Record<HostName, UpstreamAPI>;
}
const sourceOf = ({ dataSources }: Context, operation: OperationName) => dataSources[hostOf(operation)];

// ---------------------------------------------------------------------------------------
// Upstream values as the schema's scalars and enums.

/** An amount as a decimal string with at least two decimals (68999 → "68999.00"); null if unreadable. */
function decimal(value: Amount | null | undefined): string | null {
  const text = value == null ? '' : String(value).trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

function money(amount: Amount | null | undefined, currencyCode: string | null | undefined) {
  const value = decimal(amount);
  return value !== null && currencyCode ? { amount: value, currencyCode } : null;
}

/** An upstream timestamp as ISO 8601 UTC; null when absent or not a date. */
function dateTime(value: string | null | undefined): string | null {
  const ms = value ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** An upstream string as one of an enum's values, UNKNOWN for anything else. */
function toEnum(value: string | null | undefined, known: readonly string[]): string {
  const upper = value?.trim().toUpperCase() ?? '';
  return known.includes(upper) ? upper : 'UNKNOWN';
}

/** mi/km as the DistanceUnit enum; null for anything else. */
function distanceUnit(value: string | null | undefined): string | null {
  const unit = toEnum(value, DISTANCE_UNITS);
  return unit === 'UNKNOWN' ? null : unit;
}

// The SDL's enums are the lists: an upstream value they do not name is UNKNOWN.
const ADDRESS_TYPES = knownEnumValues('AddressType');
const PAYMENT_STATUSES = knownEnumValues('PaymentStatus');
const TRADE_IN_STATUSES = knownEnumValues('TradeInStatus');
const DISTANCE_UNITS = knownEnumValues('DistanceUnit');

/** Fee or credit lines in the estimate's currency; a line without a code or an amount is left out. */
function priceLines(lines: PriceLine[] | null | undefined, currencyCode: string) {
  return (lines ?? []).flatMap((line) => {
    const amount = money(line.amount, currencyCode);
    return line.code && amount ? [{ code: line.code, description: line.description ?? null, amount }] : [];
  });
}

/** The trade-in record has no currency beyond its offer's; the order's is the one it is credited in. */
type TradeInWithCurrency = TradeIn & { currencyCode: string | null };

/** What a per-order field makes of its call's answer, when not the answer as it is. */
type Mapping = (answer: never, order: Order, args: Record<string, unknown>) => unknown;
const MAPPINGS = {
  // The DELIVERY address, the primary one first.
  shippingAddress: (addresses: OrderAddress[]) => {
    const delivery = addresses.filter((address) => address.addressType?.toUpperCase() === 'DELIVERY');
    return delivery.find((address) => address.primary === true) ?? delivery[0] ?? null;
  },
  payments: (payments: Payment[], _order, { feeType }) => payments.filter((payment) => payment.feeType === feeType),
  tradeIn: (tradeIn: TradeIn, order): TradeInWithCurrency => ({
    ...tradeIn,
    currencyCode: tradeIn.offer?.currencyCode ?? order.product?.currencyCode ?? null,
  }),
} satisfies { [F in PerOrderField]?: Mapping };

/**
 * The Order fields that each take a per-order call (bench/declarations.ts), every one alike:
 * its call with the parameters the contract takes from the order and the field's arguments,
 * null when the upstream has none (404, or a stage not reached), else its mapping's value.
 * Fields sharing a call share its GET (RESTDataSource's deduplication within a request).
 */
const perOrderFields = Object.fromEntries(
  PER_ORDER_FIELDS.map(([field, operation]) => {
    const map = (MAPPINGS as Partial<Record<PerOrderField, Mapping>>)[field];
    const resolve = async (order: Order, args: Record<string, unknown>, context: Context) => {
      const answer = await sourceOf(context, operation).callOrNull(operation, callParams(operation, order, args));
      return answer === null ? null : map ? map(answer as never, order, args) : answer;
    };
    return [field, resolve];
  }),
);

/** The Customer fields a customer-level call backs, each its call's answer as it is (null when the upstream has none). */
const customerCallFields = Object.fromEntries(
  CUSTOMER_FIELDS.map(([field, operation]) => {
    const resolve = (_user: User, args: Record<string, unknown>, context: Context) =>
      sourceOf(context, operation).callOrNull(operation, callParams(operation, null, args));
    return [field, resolve];
  }),
);

// ---------------------------------------------------------------------------------------
// Resolvers: fields not listed here keep graphql's default (same name upstream).

const resolvers = {
  Query: {
    me: (_parent: unknown, _args: unknown, context: Context) => sourceOf(context, 'customerDetails').call<User>('customerDetails'),
  },
  Customer: {
    createdAt: (user: User) => dateTime(user.createdAt),
    orders: async (_user: User, { first, after }: { first: number; after?: string | null }, context: Context) => {
      const orders = await sourceOf(context, 'orderDetails').call<Order[]>('orderDetails');
      const start = after == null ? 0 : orders.findIndex((order) => order.id === after) + 1;
      return orders.slice(start, start + first);
    },
    ...customerCallFields,
  },
  Order: {
    status: (order: Order) => toEnum(order.status, ORDER_STATUSES),
    rawStatus: (order: Order) => order.status,
    // Read from the status as `status` maps it: CANCELLED reaches no stage, UNKNOWN may be at any.
    availability: (order: Order) => {
      const status = toEnum(order.status, ORDER_STATUSES);
      return STAGE_BOUND.map(({ part, from, available }) => ({ part, from, available: available(status) }));
    },
    createdAt: (order: Order) => dateTime(order.createdAt),
    updatedAt: (order: Order) => dateTime(order.updatedAt),
    cancelledAt: (order: Order) => dateTime(order.cancelledAt),
    completedAt: (order: Order) => dateTime(order.completedAt),
    buildEditableUntil: (order: Order) => dateTime(order.editBuildExpirationDate),
    delivered: (order: Order) => order.vehicleDelivered === true,
    ...perOrderFields,
  },
  Product: {
    msrp: (product: Product) => money(product.msrp, product.currencyCode),
    preorderFee: (product: Product) => money(product.preorderFee, product.currencyCode),
    deliveryFees: (product: Product) => money(product.deliveryFees, product.currencyCode),
  },
  Vehicle: {
    // A string upstream ("2023").
    modelYear: (vehicle: VehicleDetails) => {
      const year = vehicle.modelYear?.trim();
      return year && /^\d{4}$/.test(year) ? Number(year) : null;
    },
    lastUpdatedAt: (vehicle: VehicleDetails) => dateTime(vehicle.lastUpdatedAt),
  },
  Pickup: {
    locationId: (pickup: PickupCenter) => pickup.centerPlusLocationId,
    available: (pickup: PickupCenter) => pickup.pickupAvailable ?? null,
    earliestPickupDate: (pickup: PickupCenter) => pickup.earliestPickupDate?.match(/^\d{4}-\d{2}-\d{2}/)?.[0] ?? null,
    distance: ({ distance }: PickupCenter) => {
      const unit = distanceUnit(distance?.unit);
      return unit && typeof distance?.value === 'number' ? { value: distance.value, unit } : null;
    },
  },
  Estimate: {
    vehiclePrice: (e: Estimate) => money(e.vehiclePrice, e.currencyCode),
    optionsTotal: (e: Estimate) => money(e.optionsTotal, e.currencyCode),
    fees: (e: Estimate) => priceLines(e.fees, e.currencyCode),
    feesTotal: (e: Estimate) => money(e.feesTotal, e.currencyCode),
    taxes: (e: Estimate) =>
      (e.taxes ?? []).flatMap((tax) => {
        const amount = money(tax.amount, e.currencyCode);
        if (!tax.code || !amount) return [];
        const rate = typeof tax.rate === 'number' ? tax.rate : null;
        return [
          { code: tax.code, description: tax.description ?? null, rate, taxableAmount: money(tax.taxableAmount, e.currencyCode), amount },
        ];
      }),
    taxTotal: (e: Estimate) => money(e.taxTotal, e.currencyCode),
    credits: (e: Estimate) => priceLines(e.credits, e.currencyCode),
    tradeInCredit: (e: Estimate) => money(e.tradeInCredit, e.currencyCode),
    total: (e: Estimate) => money(e.total, e.currencyCode),
    paidTotal: (e: Estimate) => money(e.paidTotal, e.currencyCode),
    amountDue: (e: Estimate) => money(e.amountDue, e.currencyCode),
    calculatedAt: (e: Estimate) => dateTime(e.calculatedAt),
  },
  // Customer and pickup addresses are postal addresses; order addresses add id, type and flags.
  Address: {
    line1: (address: PostalAddress) => address.address1,
    line2: (address: PostalAddress) => address.address2,
    postalCode: (address: PostalAddress) => address.zipcode,
    type: (address: Partial<OrderAddress>) => (address.addressType ? toEnum(address.addressType, ADDRESS_TYPES) : null),
  },
  Payment: {
    feeType: () => 'ORDER_FEE',
    amount: (payment: Payment) => money(payment.amount, payment.currencyCode),
    status: (payment: Payment) => toEnum(payment.status, PAYMENT_STATUSES),
    method: (payment: Payment) => payment.paymentMethod,
    paidAt: (payment: Payment) => dateTime(payment.paidAt),
    createdAt: (payment: Payment) => dateTime(payment.createdAt),
  },
  TradeIn: {
    status: (tradeIn: TradeInWithCurrency) => toEnum(tradeIn.status, TRADE_IN_STATUSES),
    offer: ({ offer }: TradeInWithCurrency) => {
      const amount = money(offer?.amount, offer?.currencyCode);
      return amount && { amount, expiresAt: dateTime(offer?.expiresAt) };
    },
    payoffAmount: (tradeIn: TradeInWithCurrency) => money(tradeIn.payoff?.amount, tradeIn.currencyCode),
    lienHolder: (tradeIn: TradeInWithCurrency) => tradeIn.payoff?.lienHolder,
    netCredit: (tradeIn: TradeInWithCurrency) => money(tradeIn.netCredit, tradeIn.currencyCode),
  },
  TradeInVehicle: {
    mileageUnit: (vehicle: { mileageUnit?: string | null }) => distanceUnit(vehicle.mileageUnit),
  },
};

// ---------------------------------------------------------------------------------------
// The server. Apollo's own signal handling stops the server and then re-raises the signal
// (the process dies of it); the benchmark wants exit 0, so the handlers are ours.

const server = new ApolloServer<Context>({ typeDefs, resolvers, stopOnTerminationSignals: false });

const { url } = await startStandaloneServer(server, {
  listen: { host: '127.0.0.1', port: Number(process.env.APOLLO_PORT ?? 0) },
  context: async ({ req }) => {
    const { cache } = server;
    const token = req.headers.authorization ?? '';
    const dataSources = Object.fromEntries(HOSTS.map((host) => [host, new UpstreamAPI({ baseURL: urls[host], token, cache })]));
    return { dataSources: dataSources as Context['dataSources'] };
  },
});
process.stdout.write(`${JSON.stringify({ url })}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`apollo peer: stop failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
