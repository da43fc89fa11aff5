/**
 * The upstream JSON models, as `upstream/openapi.yaml` describes them: each the shape its JSON
 * must have (SHAPES, derived from the YAML, which shapes.ts reads every body through), from
 * which its TypeScript type derives (`ModelOf`). The types are the resolver parents (codegen
 * mappers). Every field but a shape's `required` ones is optional, and may be null: the gateway
 * reads them tolerantly. The contract table names the model of each response
 * (`response.model`), and shapes.ts holds every name to one of these. Pure data and types,
 * importing only the generated data.
 */
import { SHAPES as GENERATED_SHAPES } from './__generated__/contract.js';


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

/**
 * The models: each object schema of the YAML the responses are made of, by its name there, as
 * the shape its JSON must have (src/tools/upstream-codegen.ts derives them: a value's kind from
 * its type or `x-kind`, a list's bound from `maxItems`, what an object cannot be without from
 * `x-read-required` or else `required`). `satisfies` holds each to the shapes above.
 */
export const SHAPES = GENERATED_SHAPES satisfies Record<string, ObjectShape>;

/** The name of a model the contract's responses are made of (`response.model` in contract.ts). */
export type ModelName = keyof typeof SHAPES;
/** The type of one model, by its name. */
export type Model<N extends ModelName> = ModelOf<(typeof SHAPES)[N]>;

// Each model by the name the resolvers, the simulator's data and the tests know it by.
type Fields<N extends ModelName> = (typeof SHAPES)[N]['fields'];
export type TokenSet = Model<'TokenSet'>;
export type PostalAddress = Model<'PostalAddress'>;
export type User = Model<'User'>;
export type VehicleDetails = Model<'VehicleDetails'>;
export type Product = ModelOf<Fields<'Order'>['product']>;
export type Configuration = ModelOf<Fields<'Order'>['configuration']>;
export type Address = Model<'Address'>;
/** The GraphQL Address is made from either upstream shape: a postal address or an order address. */
export type AnyAddress = PostalAddress | Address;
export type Order = Model<'Order'>;
export type PickupCenter = Model<'PickupCenter'>;
export type PriceLine = Model<'PriceLine'>;
export type TaxLine = ModelOf<Fields<'Estimate'>['taxes']['list']>;
export type Estimate = Model<'Estimate'>;
export type Payment = Model<'Payment'>;
export type TradeInVehicle = ModelOf<Fields<'TradeIn'>['vehicle']>;
export type TradeIn = Model<'TradeIn'>;
