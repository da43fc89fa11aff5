// What each upstream answer must look like, field by field, and the reading that holds every
// body to it before anything else touches the body: the operations' checks, the resolvers,
// the order history and the live polls all get what this reading made, never the parsed
// JSON itself. The table follows models.ts (the compiler checks every field of every model
// has its shape) and `upstream/openapi.yaml` (test/integration/contract.test.ts checks it).
import { UpstreamFailedError } from '../errors.js';
import type { OperationName } from './contract.js';
import type { Address, Estimate, Order, Payment, PickupCenter, PostalAddress, TokenSet, TradeIn, UpstreamMoney, User, VehicleDetails } from './models.js';
import { epochToDateTime, toDecimal } from './values.js';

/**
 * A value of one kind: `text` a string, `number` a finite number, `flag` a boolean, `amount`
 * an amount toDecimal reads, `epoch` an expiry epochToDateTime reads.
 */
export type Leaf = 'text' | 'number' | 'flag' | 'amount' | 'epoch';

/** The shape a model's field type calls for: the compiler picks it from the type. */
type ShapeFor<V> = [V] extends [string]
  ? 'text'
  : [V] extends [boolean]
    ? 'flag'
    : [V] extends [number]
      ? 'number' | 'epoch'
      : [V] extends [UpstreamMoney]
        ? 'amount'
        : V extends readonly (infer I)[]
          ? { readonly list: ShapeFor<NonNullable<I>> }
          : V extends object
            ? ObjectShape<V>
            : never;

/**
 * An object's fields, each with its shape; `required` are those without which the object is
 * not one at all (a text among them must not be empty). Every other field may be absent or
 * null; one of the wrong shape is that field's error alone.
 */
export interface ObjectShape<T> {
  readonly fields: { readonly [K in keyof T]-?: ShapeFor<NonNullable<T[K]>> };
  readonly required?: readonly (keyof T & string)[];
}

type AnyShape = Leaf | { readonly list: AnyShape } | { readonly fields: Readonly<Record<string, AnyShape>>; readonly required?: readonly string[] };

const postalAddress: ObjectShape<PostalAddress>['fields'] = { address1: 'text', address2: 'text', city: 'text', region: 'text', zipcode: 'text', country: 'text' };

const ADDRESS: ObjectShape<Address> = {
  fields: { ...postalAddress, id: 'text', orderId: 'text', addressType: 'text', validated: 'flag', primary: 'flag', isActive: 'flag', createdAt: 'text', updatedAt: 'text' },
};

const PRICE_LINE: ObjectShape<NonNullable<Estimate['fees']>[number]> = { fields: { code: 'text', description: 'text', amount: 'amount' } };

/** The models of the answers, by the name the shapes go by. */
interface Models {
  tokenSet: TokenSet;
  user: User;
  order: Order;
  vehicle: VehicleDetails;
  pickup: PickupCenter;
  estimate: Estimate;
  address: Address;
  payment: Payment;
  tradeIn: TradeIn;
}

/** The model of each answer the contract promises, with what it cannot be without. */
export const SHAPES: { readonly [K in keyof Models]: ObjectShape<Models[K]> } = {
  tokenSet: {
    fields: { accessToken: 'text', accessExpiration: 'epoch', idToken: 'text', idExpiration: 'epoch', refreshToken: 'text' },
    required: ['accessToken', 'accessExpiration', 'refreshToken'],
  },
  user: {
    fields: {
      id: 'text',
      email: 'text',
      emailVerified: 'flag',
      firstName: 'text',
      lastName: 'text',
      phoneNumber: 'text',
      country: 'text',
      locale: 'text',
      address: { fields: postalAddress },
      createdAt: 'text',
      updatedAt: 'text',
    },
    required: ['id'],
  },
  order: {
    fields: {
      id: 'text',
      reservationId: 'text',
      userId: 'text',
      status: 'text',
      paymentId: 'text',
      applicationSource: 'text',
      editBuildExpirationDate: 'text',
      editBuildQuarter: 'text',
      createdAt: 'text',
      updatedAt: 'text',
      cancelledAt: 'text',
      completedAt: 'text',
      centerPlusLocationId: 'text',
      tradeinId: 'text',
      vehicleDelivered: 'flag',
      deliveryAddressId: 'text',
      configurationId: 'text',
      product: { fields: { id: 'text', country: 'text', preorderFee: 'amount', msrp: 'amount', deliveryFees: 'amount', currencyCode: 'text', model: 'text', trim: 'text' } },
      deliveryAddress: ADDRESS,
      configuration: { fields: { id: 'text', exterior: 'text', interior: 'text', wheel: 'text', trim: 'text' } },
    },
    required: ['id', 'reservationId', 'status'],
  },
  vehicle: {
    fields: {
      orderId: 'text',
      reservationId: 'text',
      vin: 'text',
      model: 'text',
      exterior: 'text',
      interior: 'text',
      lastUpdatedAt: 'text',
      modelYear: 'text',
      salesCountry: 'text',
      trim: 'text',
      wheel: 'text',
      digitalId: 'text',
    },
    required: ['vin', 'model'],
  },
  pickup: {
    fields: {
      orderId: 'text',
      centerPlusLocationId: 'text',
      name: 'text',
      address: { fields: postalAddress },
      latitude: 'number',
      longitude: 'number',
      timeZone: 'text',
      distance: { fields: { value: 'number', unit: 'text' } },
      phone: 'text',
      email: 'text',
      pickupAvailable: 'flag',
      earliestPickupDate: 'text',
    },
    required: ['centerPlusLocationId', 'name'],
  },
  estimate: {
    fields: {
      orderId: 'text',
      currencyCode: 'text',
      vehiclePrice: 'amount',
      optionsTotal: 'amount',
      fees: { list: PRICE_LINE },
      feesTotal: 'amount',
      taxes: { list: { fields: { code: 'text', description: 'text', rate: 'number', taxableAmount: 'amount', amount: 'amount' } } },
      taxTotal: 'amount',
      credits: { list: PRICE_LINE },
      tradeInCredit: 'amount',
      total: 'amount',
      paidTotal: 'amount',
      amountDue: 'amount',
      isEstimate: 'flag',
      calculatedAt: 'text',
    },
    required: ['currencyCode', 'total', 'amountDue'],
  },
  address: ADDRESS,
  payment: {
    fields: {
      id: 'text',
      orderId: 'text',
      feeType: 'text',
      amount: 'amount',
      currencyCode: 'text',
      status: 'text',
      paymentMethod: 'text',
      card: { fields: { brand: 'text', last4: 'text', expiryDate: 'text' } },
      refundable: 'flag',
      transactionReference: 'text',
      paidAt: 'text',
      createdAt: 'text',
    },
    required: ['id', 'feeType', 'amount', 'currencyCode', 'status'],
  },
  tradeIn: {
    fields: {
      id: 'text',
      reservationId: 'text',
      orderId: 'text',
      partner: 'text',
      partnerReferenceId: 'text',
      status: 'text',
      vehicle: { fields: { vin: 'text', year: 'number', make: 'text', model: 'text', trim: 'text', mileage: 'number', mileageUnit: 'text', condition: 'text' } },
      offer: { fields: { amount: 'amount', currencyCode: 'text', expiresAt: 'text' } },
      payoff: { fields: { lienHolder: 'text', amount: 'amount' } },
      netCredit: 'amount',
      createdAt: 'text',
      updatedAt: 'text',
    },
    required: ['id', 'status'],
  },
};

/**
 * A field the upstream sent in the wrong shape, standing in for its value: a resolver that
 * returns it, or a mapping that reads it (`readable`), makes that field null with this
 * UPSTREAM_ERROR, and only that field. Its message names the field, never the value.
 */
export class UnreadableValue extends UpstreamFailedError {
  constructor(operation: OperationName, path: string) {
    super(`The upstream sent the field ${path} in a shape its contract does not allow (${operation}).`, { operation });
  }
}

/** The value itself, or the field's error thrown when the upstream sent it in the wrong shape. */
export function readable<T>(value: T): Exclude<T, UnreadableValue> {
  if (value instanceof UnreadableValue) throw value;
  return value as Exclude<T, UnreadableValue>;
}

const LEAVES: Record<Leaf, (value: unknown) => boolean> = {
  text: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  flag: (value) => typeof value === 'boolean',
  amount: (value) => toDecimal(value) !== null,
  epoch: (value) => epochToDateTime(value) !== null,
};

/** Where a reader is in a body: its keys and indexes, made into text only for an UnreadableValue. */
type Path = Array<string | number>;
const pathText = (path: Path) => path.reduce<string>((text, step) => (typeof step === 'number' ? `${text}[${step}]` : text ? `${text}.${step}` : step), '');

/** What is not of its shape. */
const NOT = Symbol('not of its shape');

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `value` read as `shape`, by the shape alone: a leaf's kind is checked before anything reads
 * it, an object is copied field by field (what the table does not name is left behind, a
 * `__proto__` key among it), a list item by item. So nothing deeper than the table is ever
 * walked, whatever the body nests. A field of the wrong shape becomes an UnreadableValue
 * (copied with its object; as JSON, an object that is of no field's shape, so it is unreadable
 * again wherever it is read back); a required one makes its object not one. Every body of
 * every call goes through here, so it builds no text unless a field is unreadable.
 */
function readAs(shape: AnyShape, value: unknown, operation: OperationName, path: Path): unknown {
  if (typeof shape === 'string') return LEAVES[shape](value) ? value : NOT;
  if ('list' in shape) {
    if (!Array.isArray(value)) return NOT;
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const item = readAs(shape.list, value[i], operation, path);
      path.pop();
      if (item === NOT) return NOT;
      items.push(item);
    }
    return items;
  }
  if (!isRecord(value)) return NOT;
  const read: Record<string, unknown> = {};
  for (const key in shape.fields) {
    const given = Object.hasOwn(value, key) ? value[key] : undefined;
    path.push(key);
    const result = given === undefined || given === null ? given : readAs(shape.fields[key]!, given, operation, path);
    if ((result === undefined || result === null || result === NOT || result === '') && shape.required?.includes(key)) {
      path.pop();
      return NOT;
    }
    if (result !== undefined) read[key] = result === NOT ? new UnreadableValue(operation, pathText(path)) : result;
    path.pop();
  }
  return read;
}

/** An answer's body read as the model it must be; null when it is not one (the answer is malformed). */
export function readModel<T>(operation: OperationName, shape: ObjectShape<T>, body: unknown): T | null {
  const read = readAs(shape as AnyShape, body, operation, []);
  return read === NOT ? null : (read as T);
}

/** A body that must be a list of the model: null when it is not a list, or an item is not one. */
export function readList<T>(operation: OperationName, shape: ObjectShape<T>, body: unknown): T[] | null {
  const read = readAs({ list: shape as AnyShape }, body, operation, []);
  return read === NOT ? null : (read as T[]);
}
