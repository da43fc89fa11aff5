/**
 * The upstream JSON models, as `upstream/openapi.yaml` describes them, each declared once: as
 * the shape its JSON must have (SHAPES, which shapes.ts reads every body through), from which
 * its TypeScript type derives (`ModelOf`). The types are the resolver parents (codegen mappers).
 * Every field but a shape's `required` ones is optional, and may be null: the gateway reads
 * them tolerantly. The contract table names the model of each response (`response.model`),
 * and shapes.ts holds every name to one of these. Pure data and types, importing nothing.
 */

/** An amount in major units: a JSON number upstream (a decimal string is accepted too). */
export type UpstreamMoney = number | string;

/** The error body the upstream sends with a 4xx or 5xx (the contract's error schema); failures.ts checks each field it reads. */
export interface UpstreamErrorBody {
  statusCode?: number;
  error?: string;
  code?: string;
  message?: string;
  path?: string;
  timestamp?: string;
}

/**
 * A value of one kind. The strings come in kinds, each with its longest length
 * (STRING_LENGTHS): `id` an identifier, `code` a short code or token of a few characters (a
 * status, a country, a trim code, a phone number), `text` words a person reads (a name, a
 * description, an address line), `token` a credential; `currency` an ISO 4217 code (three
 * capital letters). `int` an integer a GraphQL Int holds (32 bits, signed), `number` a finite
 * number, `flag` a boolean, `amount` an amount toDecimal reads, `epoch` an expiry
 * epochToDateTime reads (epoch seconds, or milliseconds when above 1e12), `dateTime` a
 * date-time toIsoDateTime reads (so a GraphQL DateTime can take it as it is).
 */
export type Leaf = StringKind | 'currency' | 'int' | 'number' | 'flag' | 'amount' | 'epoch' | 'dateTime';

/**
 * The longest string of each kind, in UTF-16 code units. An upstream value is copied into
 * answers (an order's currency into every amount, a name into every address), so none may
 * arrive at any length: a longer one is its field's UPSTREAM_ERROR. Each is far past what the
 * contract's examples and the real service's values need (an id of 36, a code of 2-17, a JWT of
 * about 1 kB).
 */
export const STRING_LENGTHS = { id: 256, code: 64, text: 1_000, token: 16_384 } as const;
export type StringKind = keyof typeof STRING_LENGTHS;

/** The shape of a value: a leaf, a list of one shape (of at most `maxItems`), or an object. */
export type Shape = Leaf | ListShape | ObjectShape;

/** A list of one shape, with the most items it may have: a longer one is its field's UPSTREAM_ERROR. */
export interface ListShape {
  readonly list: Shape;
  readonly maxItems: number;
}

/**
 * An object's fields, each with its shape; `required` are those without which the object is
 * not one at all (a text among them must not be empty). Every other field may be absent or
 * null; one of the wrong shape is that field's error alone.
 */
export interface ObjectShape {
  readonly fields: { readonly [field: string]: Shape };
  readonly required?: readonly string[];
}

/** What a leaf's value is in TypeScript. */
interface LeafValues extends Record<StringKind | 'currency', string> {
  int: number;
  number: number;
  flag: boolean;
  amount: UpstreamMoney;
  epoch: number;
  dateTime: string;
}

type ValueOf<S> = S extends Leaf
  ? LeafValues[S]
  : S extends { readonly list: infer Item; readonly maxItems: number }
    ? ValueOf<Item>[]
    : S extends ObjectShape
      ? ModelOf<S>
      : never;
type RequiredOf<S extends ObjectShape> = NonNullable<S['required']> extends readonly (infer Field)[] ? Field : never;

/** The type of what an object shape reads: its required fields present, every other one optional and nullable. */
export type ModelOf<S extends ObjectShape> = {
  -readonly [K in keyof S['fields'] as K extends RequiredOf<S> ? K : never]: ValueOf<S['fields'][K]>;
} & {
  -readonly [K in keyof S['fields'] as K extends RequiredOf<S> ? never : K]?: ValueOf<S['fields'][K]> | null;
};

/** An object shape, its `required` fields among its fields (the compiler checks they are). */
function object<const F extends ObjectShape['fields'], const R extends readonly (keyof F & string)[] = []>(
  fields: F,
  required?: R,
): { readonly fields: F; readonly required?: R } {
  return required ? { fields, required } : { fields };
}

const POSTAL_ADDRESS = object({ address1: 'text', address2: 'text', city: 'text', region: 'text', zipcode: 'code', country: 'text' });

const ADDRESS = object({
  ...POSTAL_ADDRESS.fields,
  id: 'id',
  orderId: 'id',
  /** DELIVERY, BILLING, REGISTRATION; others may appear. */
  addressType: 'code',
  validated: 'flag',
  primary: 'flag',
  isActive: 'flag',
  createdAt: 'dateTime',
  updatedAt: 'dateTime',
});

const PRODUCT = object({
  id: 'id',
  country: 'text',
  preorderFee: 'amount',
  msrp: 'amount',
  deliveryFees: 'amount',
  currencyCode: 'currency',
  model: 'text',
  trim: 'text',
});

const CONFIGURATION = object({ id: 'id', exterior: 'code', interior: 'code', wheel: 'code', trim: 'code' });

const PRICE_LINE = object({ code: 'code', description: 'text', amount: 'amount' });

const TAX_LINE = object({ code: 'code', description: 'text', rate: 'number', taxableAmount: 'amount', amount: 'amount' });

/** The most lines of one kind an estimate may list (fees, taxes, credits): a real one has a handful. */
const PRICE_LINES = 200;

const TRADE_IN_VEHICLE = object({
  vin: 'code',
  year: 'int',
  make: 'text',
  model: 'text',
  trim: 'text',
  mileage: 'int',
  /** mi or km. */
  mileageUnit: 'code',
  condition: 'code',
});

/** The model of each response the contract promises, by the name the contract table gives it, with what it cannot be without. */
export const SHAPES = {
  tokenSet: object(
    { accessToken: 'token', accessExpiration: 'epoch', idToken: 'token', idExpiration: 'epoch', refreshToken: 'token' },
    ['accessToken', 'accessExpiration', 'refreshToken'],
  ),
  user: object(
    {
      id: 'id',
      email: 'text',
      emailVerified: 'flag',
      firstName: 'text',
      lastName: 'text',
      phoneNumber: 'code',
      country: 'code',
      locale: 'code',
      address: POSTAL_ADDRESS,
      createdAt: 'dateTime',
      updatedAt: 'dateTime',
    },
    ['id'],
  ),
  order: object(
    {
      id: 'id',
      reservationId: 'id',
      userId: 'id',
      /** One of the stages, CANCELLED, or a value this contract does not know yet. */
      status: 'code',
      paymentId: 'id',
      applicationSource: 'code',
      editBuildExpirationDate: 'dateTime',
      editBuildQuarter: 'code',
      createdAt: 'dateTime',
      updatedAt: 'dateTime',
      cancelledAt: 'dateTime',
      completedAt: 'dateTime',
      centerPlusLocationId: 'id',
      tradeinId: 'id',
      vehicleDelivered: 'flag',
      deliveryAddressId: 'id',
      configurationId: 'id',
      product: PRODUCT,
      deliveryAddress: ADDRESS,
      configuration: CONFIGURATION,
    },
    ['id', 'reservationId', 'status'],
  ),
  vehicle: object(
    {
      orderId: 'id',
      reservationId: 'id',
      vin: 'code',
      model: 'code',
      exterior: 'code',
      interior: 'code',
      lastUpdatedAt: 'code',
      /** A string upstream, e.g. "2023". */
      modelYear: 'code',
      salesCountry: 'code',
      trim: 'code',
      wheel: 'code',
      digitalId: 'id',
    },
    ['vin', 'model'],
  ),
  pickup: object(
    {
      orderId: 'id',
      centerPlusLocationId: 'id',
      name: 'text',
      address: POSTAL_ADDRESS,
      latitude: 'number',
      longitude: 'number',
      timeZone: 'code',
      distance: object({ value: 'number', unit: 'code' }),
      phone: 'code',
      email: 'text',
      pickupAvailable: 'flag',
      earliestPickupDate: 'code',
    },
    ['centerPlusLocationId', 'name'],
  ),
  estimate: object(
    {
      orderId: 'id',
      currencyCode: 'currency',
      vehiclePrice: 'amount',
      optionsTotal: 'amount',
      fees: { list: PRICE_LINE, maxItems: PRICE_LINES },
      feesTotal: 'amount',
      taxes: { list: TAX_LINE, maxItems: PRICE_LINES },
      taxTotal: 'amount',
      credits: { list: PRICE_LINE, maxItems: PRICE_LINES },
      tradeInCredit: 'amount',
      total: 'amount',
      paidTotal: 'amount',
      amountDue: 'amount',
      isEstimate: 'flag',
      calculatedAt: 'dateTime',
    },
    ['currencyCode', 'total', 'amountDue'],
  ),
  address: ADDRESS,
  payment: object(
    {
      id: 'id',
      orderId: 'id',
      feeType: 'code',
      amount: 'amount',
      currencyCode: 'currency',
      /** PENDING, SUCCEEDED, FAILED, REFUNDED; others may appear. */
      status: 'code',
      paymentMethod: 'code',
      card: object({ brand: 'code', last4: 'code', expiryDate: 'code' }),
      refundable: 'flag',
      /** Internal to the payment provider: never exposed by the gateway. */
      transactionReference: 'id',
      paidAt: 'dateTime',
      createdAt: 'dateTime',
    },
    ['id', 'feeType', 'amount', 'currencyCode', 'status'],
  ),
  tradeIn: object(
    {
      id: 'id',
      reservationId: 'id',
      orderId: 'id',
      partner: 'text',
      partnerReferenceId: 'id',
      status: 'code',
      vehicle: TRADE_IN_VEHICLE,
      offer: object({ amount: 'amount', currencyCode: 'currency', expiresAt: 'dateTime' }),
      payoff: object({ lienHolder: 'text', amount: 'amount' }),
      netCredit: 'amount',
      createdAt: 'dateTime',
      updatedAt: 'dateTime',
    },
    ['id', 'status'],
  ),
};

/** The name of a model the contract's responses are made of (`response.model` in contract.ts). */
export type ModelName = keyof typeof SHAPES;
/** The type of one model, by its name. */
export type Model<N extends ModelName> = ModelOf<(typeof SHAPES)[N]>;

// Each model by the name the resolvers, the simulator's data and the tests know it by.
export type TokenSet = Model<'tokenSet'>;
export type PostalAddress = ModelOf<typeof POSTAL_ADDRESS>;
export type User = Model<'user'>;
export type VehicleDetails = Model<'vehicle'>;
export type Product = ModelOf<typeof PRODUCT>;
export type Configuration = ModelOf<typeof CONFIGURATION>;
export type Address = Model<'address'>;
/** The GraphQL Address is made from either upstream shape: a postal address or an order address. */
export type AnyAddress = PostalAddress | Address;
export type Order = Model<'order'>;
export type PickupCenter = Model<'pickup'>;
export type PriceLine = ModelOf<typeof PRICE_LINE>;
export type TaxLine = ModelOf<typeof TAX_LINE>;
export type Estimate = Model<'estimate'>;
export type Payment = Model<'payment'>;
export type TradeInVehicle = ModelOf<typeof TRADE_IN_VEHICLE>;
export type TradeIn = Model<'tradeIn'>;
