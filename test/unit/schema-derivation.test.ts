// The schema build writes what the upstream declaration says into the SDL (src/graph/sdl.ts):
// with a declaration of its own, a synthetic SDL gets its parts, its stage words and its
// refusals from that declaration alone.
import { buildASTSchema, GraphQLEnumType, GraphQLObjectType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { DeclaredField } from '../../src/graph/order-fields.js';
import { customerCallFields } from '../../src/graph/resolvers/calls.js';
import { deriveTypeDefs, loadTypeDefs } from '../../src/graph/sdl.js';
import { createGraphSchema } from '../../src/graph/schema.js';

const SDL = `
  enum OrderStatus { "Stage 1: placed." PLACED "Stage 2: built" BUILT "Stage 3: shipped." SHIPPED UNKNOWN }
  "A part." enum OrderPart
  type Order {
    id: ID!
    "The order's appointment (upstream \`GET /appointment\`)."
    appointment: String
    "Its wheels; null when none."
    wheels: [String!]
    "Its documents."
    documents: [String!]
  }
  type Customer { id: ID! "The customer's preferences." preferences: String }
`;

const declared: DeclaredField[] = [
  { type: 'Order', field: 'appointment', operation: 'priceEstimate', activeFrom: 'BUILD_LOCKED' },
  { type: 'Order', field: 'wheels', operation: 'nearestPickupCenter', activeFrom: 'BUILD_LOCKED' },
  { type: 'Order', field: 'documents', operation: 'shippingAddresses' },
  { type: 'Customer', field: 'preferences', operation: 'customerDetails' },
];
// Two parts at one synthetic stage: the stage names are the SDL's, the declaration's are the contract's.
const availableFrom = { appointment: 'BUILT', wheels: 'BUILT' };

const build = (sdl: string, fields: readonly DeclaredField[] = declared) =>
  buildASTSchema(
    deriveTypeDefs([parse(sdl)], fields, availableFrom).reduce((all, document) => ({
      ...all,
      definitions: [...all.definitions, ...document.definitions],
    })),
  );

describe('the schema build, from the declaration', () => {
  it('gives OrderPart a value per stage-bound field, their stage to the fields and to the stage', () => {
    const schema = build(SDL);
    const parts = schema.getType('OrderPart') as GraphQLEnumType;
    expect(parts.getValues().map(({ name, description }) => [name, description])).toEqual([
      ['APPOINTMENT', "`Order.appointment`: the order's appointment, from BUILT."],
      ['WHEELS', '`Order.wheels`: its wheels, from BUILT.'],
    ]);
    const order = (schema.getType('Order') as GraphQLObjectType).getFields();
    expect(order.appointment!.description).toBe(
      "The order's appointment (upstream `GET /appointment`). Available from BUILD_LOCKED: earlier, null with no error (`availability` says so).",
    );
    expect(order.wheels!.description).toBe(
      'Its wheels; null when none. Available from BUILD_LOCKED: earlier, null with no error (`availability` says so).',
    );
    expect(order.documents!.description).toBe('Its documents.');
    const statuses = (schema.getType('OrderStatus') as GraphQLEnumType).getValues().map(({ description }) => description);
    expect(statuses).toEqual([
      'Stage 1: placed.',
      'Stage 2: built; `appointment` and `wheels` become available.',
      'Stage 3: shipped.',
      undefined,
    ]);
  });

  it('refuses a non-null field a call backs, saying why', () => {
    expect(() => build(SDL.replace('wheels: [String!]', 'wheels: [String!]!'))).toThrow(
      'schema/: Order.wheels must be nullable: the upstream call nearestPickupCenter backs it, and when that call fails the field is null with its error; non-null, that null would reach its parent and null every Order of the answer.',
    );
    expect(() => build(SDL.replace('preferences: String', 'preferences: String!'))).toThrow(
      /Customer\.preferences must be nullable.*every Customer/,
    );
  });

  it('refuses a declared field the SDL lacks, and OrderPart values written by hand', () => {
    expect(() => build(SDL, [...declared, { type: 'Customer', field: 'documents', operation: 'customerDetails' }])).toThrow(
      'schema/: the upstream declaration backs Customer.documents, which the SDL does not have',
    );
    expect(() => build(SDL.replace('enum OrderPart', 'enum OrderPart { APPOINTMENT WHEELS }'))).toThrow(/OrderPart lists no values/);
  });

  it('gives a Customer field a call backs its resolver, and refuses a customer-level call that takes a parameter from an order', () => {
    expect(Object.keys(customerCallFields({ profile: 'customerDetails', list: 'orderDetails' }))).toEqual(['profile', 'list']);
    expect(() => customerCallFields({ profile: 'customerDetails', preferences: 'priceEstimate' })).toThrow(
      'Customer.preferences: priceEstimate takes a parameter from an order, and a customer has none',
    );
  });

  it('is what the gateway serves and the printed schema shows', () => {
    const served = createGraphSchema().getType('OrderPart') as GraphQLEnumType;
    const loaded = buildASTSchema(parse(loadTypeDefs().join('\n'))).getType('OrderPart') as GraphQLEnumType;
    expect(served.getValues().length).toBeGreaterThan(0);
    const described = (type: GraphQLEnumType) => type.getValues().map(({ name, description }) => [name, description]);
    expect(described(served)).toEqual(described(loaded));
  });
});
