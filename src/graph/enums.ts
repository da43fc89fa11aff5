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
    return UNKNOWN;
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
 * Opens every enum of the schema that has UNKNOWN, and makes the fields that take one as an
 * argument refuse it: no enum needs code of its own.
 */
export function openEnums<S extends GraphQLSchema>(schema: S): S {
  const types = Object.values(schema.getTypeMap()).filter((type) => !type.name.startsWith('__'));
  for (const type of types.filter(isOpen)) open(type);
  for (const type of types) if (isObjectType(type) || isInterfaceType(type)) Object.values(type.getFields()).forEach(refuseUnknown);
  return schema;
}
