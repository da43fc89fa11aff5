// The SDL's enums with an UNKNOWN value: open to the values the upstream adds, closed to callers.
import {
  defaultFieldResolver,
  getNamedType,
  GraphQLEnumType,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  Kind,
  type GraphQLField,
  type GraphQLSchema,
  type ValueNode,
} from 'graphql';
import { BadUserInputError } from '../errors.js';

const UNKNOWN = 'UNKNOWN';

const refusal = (type: string) =>
  `${type}.${UNKNOWN} stands for a value the upstream sent that this API does not know yet: it is an answer, never a value to ask with.`;

/**
 * Opens an enum that has UNKNOWN: an answer it does not list (after its value as given, the
 * value trimmed and in upper case: `delivery` is DELIVERY) is UNKNOWN rather than an error, so
 * a status the upstream adds is never a failed field; as an argument, UNKNOWN is refused. In
 * place, on the built schema: both executors call the type's own methods, and a schema
 * transform (mapSchema) would rebuild the type without them.
 */
function open(type: GraphQLEnumType): void {
  const [serialize, parseValue, parseLiteral] = [type.serialize.bind(type), type.parseValue.bind(type), type.parseLiteral.bind(type)];
  type.serialize = (value) => {
    for (const candidate of typeof value === 'string' ? [value, value.trim().toUpperCase()] : [value]) {
      try {
        return serialize(candidate);
      } catch {
        // Not one of its values: the next reading, else UNKNOWN.
      }
    }
    // One of its names, as its field's resolver answers (answersByName), serialized again by graphql-js.
    return typeof value === 'string' && type.getValue(value) ? value : UNKNOWN;
  };
  type.parseValue = (value) => {
    if (value === UNKNOWN) throw new GraphQLError(refusal(type.name));
    return parseValue(value);
  };
  type.parseLiteral = (node: ValueNode, variables) => {
    if (node.kind === Kind.ENUM && node.value === UNKNOWN) throw new GraphQLError(refusal(type.name));
    return parseLiteral(node, variables);
  };
}

const isOpen = (type: unknown): type is GraphQLEnumType => type instanceof GraphQLEnumType && type.getValue(UNKNOWN) !== undefined;

const isPromise = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

/**
 * Makes a field of an open enum answer its value by the enum's name itself: graphql-jit, as the
 * gateway compiles it (server/executor.ts), writes a leaf as it is given, without its type's
 * `serialize`. Null and an error (an UnreadableValue: the field's error) stay as they are.
 */
function answersByName(field: GraphQLField<unknown, unknown>, type: GraphQLEnumType): void {
  const resolve = field.resolve ?? defaultFieldResolver;
  const byName = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(byName) : value == null || value instanceof Error ? value : type.serialize(value);
  field.resolve = (source, args, context, info) => {
    const value = resolve(source, args, context, info);
    return isPromise(value) ? value.then(byName) : byName(value);
  };
}

/**
 * Makes a field refuse UNKNOWN in an argument of an open enum (or a list of one) itself too:
 * graphql-jit reads variables by its own rules, past `parseValue`, so this is where both
 * executors meet.
 */
function refuseUnknown(field: GraphQLField<unknown, unknown>): void {
  const open = field.args.flatMap(({ name, type }) => {
    const named = getNamedType(type);
    return isOpen(named) ? [{ name, type: named.name, unknown: named.getValue(UNKNOWN)!.value as unknown }] : [];
  });
  if (open.length === 0) return;
  const resolve = field.resolve ?? defaultFieldResolver;
  field.resolve = (source, args: Record<string, unknown>, context, info) => {
    for (const { name, type, unknown } of open) if ([args[name]].flat().includes(unknown)) throw new BadUserInputError(refusal(type));
    return resolve(source, args, context, info);
  };
}

/**
 * Opens every enum of the schema that has UNKNOWN, makes the fields that answer one answer it by
 * name and the fields that take one as an argument refuse it: no enum needs code of its own.
 * An enum without UNKNOWN only answers what the gateway chose or checked (Order.payments keeps
 * the payments of the fee type asked for): graphql-jit writes it as it is.
 */
export function openEnums<S extends GraphQLSchema>(schema: S): S {
  const types = Object.values(schema.getTypeMap()).filter((type) => !type.name.startsWith('__'));
  for (const type of types.filter(isOpen)) open(type);
  for (const type of types)
    if (isObjectType(type) || isInterfaceType(type))
      for (const field of Object.values(type.getFields())) {
        const answered = getNamedType(field.type);
        if (isOpen(answered)) answersByName(field, answered);
        refuseUnknown(field);
      }
  return schema;
}
