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
 * A value of one kind: `text` a string, `number` a finite number, `flag` a boolean, `amount`
 * an amount toDecimal reads, `epoch` an expiry epochToDateTime reads (epoch seconds, or
 * milliseconds when above 1e12), `dateTime` a date-time toIsoDateTime reads (so a GraphQL
 * DateTime can take it as it is).
 */
export type Leaf = 'text' | 'number' | 'flag' | 'amount' | 'epoch' | 'dateTime';

/** The shape of a value: a leaf, a list of one shape, or an object. */
export type Shape = Leaf | { readonly list: Shape } | ObjectShape;

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
interface LeafValues {
  text: string;
  number: number;
  flag: boolean;
  amount: UpstreamMoney;
  epoch: number;
  dateTime: string;
}

type ValueOf<S> = S extends Leaf
  ? LeafValues[S]
  : S extends { readonly list: infer Item }
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

const POSTAL_ADDRESS = object({ address1: 'text', address2: 'text', city: 'text', region: 'text', zipcode: 'text', country: 'text' });

const ADDRESS = object({
  ...POSTAL_ADDRESS.fields,
  id: 'text',
  orderId: 'text',
  /** DELIVERY, BILLING, REGISTRATION; others may appear. */
  addressType: 'text',
  validated: 'flag',
  primary: 'flag',
  isActive: 'flag',
  createdAt: 'text',
  updatedAt: 'text',
});

const PRODUCT = object({
  id: 'text',
  country: 'text',
  preorderFee: 'amount',
  msrp: 'amount',
  deliveryFees: 'amount',
  currencyCode: 'text',
  model: 'text',
  trim: 'text',
});

const CONFIGURATION = object({ id: 'text', exterior: 'text', interior: 'text', wheel: 'text', trim: 'text' });

const PRICE_LINE = object({ code: 'text', description: 'text', amount: 'amount' });

const TAX_LINE = object({ code: 'text', description: 'text', rate: 'number', taxableAmount: 'amount', amount: 'amount' });

const TRADE_IN_VEHICLE = object({
  vin: 'text',
  year: 'number',
  make: 'text',
  model: 'text',
  trim: 'text',
  mileage: 'number',
  /** mi or km. */
  mileageUnit: 'text',
  condition: 'text',
});

/** The model of each response the contract promises, by the name the contract table gives it, with what it cannot be without. */
export const SHAPES = {
  tokenSet: object(
    { accessToken: 'text', accessExpiration: 'epoch', idToken: 'text', idExpiration: 'epoch', refreshToken: 'text' },
    ['accessToken', 'accessExpiration', 'refreshToken'],
  ),
  user: object(
    {
      id: 'text',
      email: 'text',
      emailVerified: 'flag',
      firstName: 'text',
      lastName: 'text',
      phoneNumber: 'text',
      country: 'text',
      locale: 'text',
      address: POSTAL_ADDRESS,
      createdAt: 'text',
      updatedAt: 'text',
    },
    ['id'],
  ),
  order: object(
    {
      id: 'text',
      reservationId: 'text',
      userId: 'text',
      /** One of the stages, CANCELLED, or a value this contract does not know yet. */
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
      product: PRODUCT,
      deliveryAddress: ADDRESS,
      configuration: CONFIGURATION,
    },
    ['id', 'reservationId', 'status'],
  ),
  vehicle: object(
    {
      orderId: 'text',
      reservationId: 'text',
      vin: 'text',
      model: 'text',
      exterior: 'text',
      interior: 'text',
      lastUpdatedAt: 'text',
      /** A string upstream, e.g. "2023". */
      modelYear: 'text',
      salesCountry: 'text',
      trim: 'text',
      wheel: 'text',
      digitalId: 'text',
    },
    ['vin', 'model'],
  ),
  pickup: object(
    {
      orderId: 'text',
      centerPlusLocationId: 'text',
      name: 'text',
      address: POSTAL_ADDRESS,
      latitude: 'number',
      longitude: 'number',
      timeZone: 'text',
      distance: object({ value: 'number', unit: 'text' }),
      phone: 'text',
      email: 'text',
      pickupAvailable: 'flag',
      earliestPickupDate: 'text',
    },
    ['centerPlusLocationId', 'name'],
  ),
  estimate: object(
    {
      orderId: 'text',
      currencyCode: 'text',
      vehiclePrice: 'amount',
      optionsTotal: 'amount',
      fees: { list: PRICE_LINE },
      feesTotal: 'amount',
      taxes: { list: TAX_LINE },
      taxTotal: 'amount',
      credits: { list: PRICE_LINE },
      tradeInCredit: 'amount',
      total: 'amount',
      paidTotal: 'amount',
      amountDue: 'amount',
      isEstimate: 'flag',
      calculatedAt: 'text',
    },
    ['currencyCode', 'total', 'amountDue'],
  ),
  address: ADDRESS,
  payment: object(
    {
      id: 'text',
      orderId: 'text',
      feeType: 'text',
      amount: 'amount',
      currencyCode: 'text',
      /** PENDING, SUCCEEDED, FAILED, REFUNDED; others may appear. */
      status: 'text',
      paymentMethod: 'text',
      card: object({ brand: 'text', last4: 'text', expiryDate: 'text' }),
      refundable: 'flag',
      /** Internal to the payment provider: never exposed by the gateway. */
      transactionReference: 'text',
      paidAt: 'text',
      createdAt: 'text',
    },
    ['id', 'feeType', 'amount', 'currencyCode', 'status'],
  ),
  tradeIn: object(
    {
      id: 'text',
      reservationId: 'text',
      orderId: 'text',
      partner: 'text',
      partnerReferenceId: 'text',
      status: 'text',
      vehicle: TRADE_IN_VEHICLE,
      offer: object({ amount: 'amount', currencyCode: 'text', expiresAt: 'text' }),
      payoff: object({ lienHolder: 'text', amount: 'amount' }),
      netCredit: 'amount',
      createdAt: 'text',
      updatedAt: 'text',
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
