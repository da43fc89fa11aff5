// The custom scalars DateTime, Date and Decimal: what each accepts and how it is normalised.
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { BadUserInputError } from '../../errors.js';
import { DECIMAL } from '../../upstream/values.js';
import { toDateTime } from './mapping.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

// Descriptions come from the SDL; these only parse and normalise.
function stringScalar(name: string, expected: string, read: (value: string) => string | null) {
  const parse = (value: unknown): string => {
    const result = typeof value === 'string' ? read(value) : null;
    if (result === null) throw new BadUserInputError(`${name} cannot represent ${JSON.stringify(value)}: expected ${expected}`);
    return result;
  };
  return new GraphQLScalarType({
    name,
    serialize: (value) => {
      const result = typeof value === 'string' ? read(value) : null;
      // Resolvers normalise before returning; a value that still fails here is a bug.
      if (result === null) throw new TypeError(`${name} cannot serialize this value`);
      return result;
    },
    parseValue: parse,
    parseLiteral: (ast: ValueNode) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
  });
}

export const scalarResolvers = {
  DateTime: stringScalar('DateTime', 'an ISO 8601 date-time, e.g. 2023-07-20T07:15:58.278Z', toDateTime),
  Date: stringScalar('Date', 'a calendar date YYYY-MM-DD', (value) =>
    DATE.test(value) && !Number.isNaN(Date.parse(value)) ? value : null,
  ),
  Decimal: stringScalar('Decimal', 'an exact decimal string, e.g. "68999.00"', (value) => (DECIMAL.test(value) ? value : null)),
};
