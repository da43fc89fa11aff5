// The benchmark's Tailcall configuration makes the gateway's calls: one @http per call of a whole order, each the contract's URL.
import { Kind, parse, print, type ConstDirectiveNode, type FieldDefinitionNode, type ObjectTypeDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { tailcallConfig, tailcallQuery } from '../../bench/tailcall.js';
import { CUSTOMER_OPERATIONS, ORDER_FIELD_OPERATIONS, PER_ORDER_OPERATIONS, wholeOrderCalls } from '../../src/graph/order-fields.js';
import {
  callParams,
  CONTRACT,
  HOSTS,
  OPERATION_NAMES,
  operationUrl,
  type OperationName,
  type UpstreamUrls,
} from '../../src/upstream/contract.js';

// Bases with path prefixes and a trailing slash, as a deployment may give them.
const URLS = Object.fromEntries(HOSTS.map((host, i) => [host, `http://127.0.0.1:${9000 + i}/prefix-${i}/`])) as UpstreamUrls;
const ORDER = { id: 'order-1', reservationId: 'OC-1' };
// Each required argument of the declaration given a value the contract allows (an optional one is not given).
const ARGS: Record<string, string> = Object.fromEntries(
  Object.values(CONTRACT).flatMap((spec) =>
    Object.values('params' in spec ? spec.params : {}).flatMap((source) =>
      'argument' in source && source.required ? [[source.argument, source.enum?.[0] ?? `${source.argument}-value`]] : [],
    ),
  ),
);

const document = parse(tailcallConfig(URLS, 8123));
const types = new Map(
  document.definitions
    .filter((node): node is ObjectTypeDefinitionNode => node.kind === Kind.OBJECT_TYPE_DEFINITION)
    .map((node) => [node.name.value, node]),
);
const fieldsWithHttp = [...types.values()].flatMap((type) =>
  (type.fields ?? []).flatMap((field) => {
    const http = field.directives?.find((directive) => directive.name.value === 'http');
    return http ? [{ type: type.name.value, field, http }] : [];
  }),
);

/** The URL an @http sends for the order and arguments above: its templates filled, its query appended in order, an empty value left out where `skipEmpty` says so. */
function urlOf(http: ConstDirectiveNode): string {
  const fill = (template: string) =>
    template.replace(/\{\{\.(value|args)\.(\w+)\}\}/g, (_, from: string, key: string) =>
      from === 'value' ? ORDER[key as keyof typeof ORDER] : (ARGS[key] ?? ''),
    );
  const arg = (name: string) => http.arguments?.find((argument) => argument.name.value === name)?.value;
  const url = arg('url');
  if (url?.kind !== Kind.STRING) throw new Error(`no url in ${print(http)}`);
  const query = arg('query');
  const pairs =
    query?.kind === Kind.LIST
      ? query.values.flatMap((item) => {
          if (item.kind !== Kind.OBJECT) throw new Error('a query item is not an object');
          const [key, value, skipEmpty] = ['key', 'value', 'skipEmpty'].map(
            (name) => item.fields.find((field) => field.name.value === name)?.value,
          );
          if (key?.kind !== Kind.STRING || value?.kind !== Kind.STRING) throw new Error('a query item without key or value');
          const filled = fill(value.value);
          return filled === '' && skipEmpty?.kind === Kind.BOOLEAN && skipEmpty.value ? [] : [[key.value, filled]];
        })
      : [];
  const path = fill(url.value);
  return pairs.length === 0 ? path : `${path}?${new URLSearchParams(pairs)}`;
}

describe("the benchmark's Tailcall configuration", () => {
  it('has one @http per call of a whole order: the customer calls at the root, each per-order call on the order', () => {
    expect(fieldsWithHttp.map(({ type, field }) => `${type}.${field.name.value}`).sort()).toEqual(
      [
        ...CUSTOMER_OPERATIONS.map((operation) => `Query.${operation}`),
        ...PER_ORDER_OPERATIONS.map((operation) => `Order.${operation}`),
      ].sort(),
    );
    // One order: the calls a gateway makes for it.
    expect(fieldsWithHttp).toHaveLength(wholeOrderCalls(1));
  });

  it.each(OPERATION_NAMES.filter((operation) => fieldsWithHttp.some(({ field }) => field.name.value === operation)))(
    "%s's @http sends the contract's URL, its parameters taken from the order and the field's arguments",
    (operation) => {
      const { http } = fieldsWithHttp.find(({ field }) => field.name.value === operation)!;
      expect(urlOf(http)).toBe(operationUrl(URLS, operation as OperationName, callParams(operation as OperationName, ORDER, ARGS)));
    },
  );

  it('forwards only the caller’s Authorization, and listens where it is told', () => {
    const schema = document.definitions.find((node) => node.kind === Kind.SCHEMA_DEFINITION);
    expect(schema && print(schema)).toMatch(
      /@server\(hostname: "127\.0\.0\.1", port: 8123\) @upstream\(allowedHeaders: \["authorization"\]\)/,
    );
  });

  it('asks, in its whole-order query, for every per-order call with the default of each argument of the field it backs', () => {
    const query = tailcallQuery();
    for (const operation of PER_ORDER_OPERATIONS) expect(query).toContain(operation);
    // Order.payments(feeType: FeeType = ORDER_FEE): the field orderPayments backs.
    expect(ORDER_FIELD_OPERATIONS.payments).toBe('orderPayments');
    expect(query).toContain('orderPayments(feeType: "ORDER_FEE")');
    // A field a call's URL takes a value from is one the model cannot be without (Tailcall refuses a nullable one there).
    const order = types.get('Order')!.fields!;
    const typeOf = (name: string) => print((order.find((field) => field.name.value === name) as FieldDefinitionNode).type);
    expect([typeOf('id'), typeOf('reservationId')]).toEqual(['String!', 'String!']);
  });
});
