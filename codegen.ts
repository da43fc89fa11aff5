import type { CodegenConfig } from '@graphql-codegen/cli';
import { loadTypeDefs } from './src/graph/sdl.js';

const scalars = { DateTime: 'string', Date: 'string', Decimal: 'string' };

const config: CodegenConfig = {
  // schema/*.graphql with what the upstream declaration adds (src/graph/sdl.ts), as the gateway serves it.
  schema: loadTypeDefs().join('\n'),
  emitLegacyCommonJSImports: false,
  generates: {
    // Resolver signatures: the parent of each type is the upstream JSON it is made from.
    'src/graph/__generated__/resolvers-types.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        strictScalars: true,
        scalars,
        contextType: '../context.js#GraphQLContext',
        mapperTypeSuffix: 'Model',
        mappers: {
          TokenSet: '../mappers.js#TokenSet',
          Customer: '../mappers.js#User',
          Order: '../mappers.js#Order',
          Product: '../mappers.js#Product',
          Configuration: '../mappers.js#Configuration',
          Vehicle: '../mappers.js#VehicleDetails',
          Pickup: '../mappers.js#PickupCenter',
          Estimate: '../mappers.js#Estimate',
          Address: '../mappers.js#AddressParent',
          Payment: '../mappers.js#Payment',
          TradeIn: '../mappers.js#TradeInParent',
          TradeInVehicle: '../mappers.js#TradeInVehicle',
          OrderUpdate: '../mappers.js#OrderUpdateParent',
          Notifications: '../context.js#NotificationSettings',
        },
      },
    },
    // The typed SDK's documents, as TypedDocumentNodes.
    'src/client/__generated__/': {
      documents: 'src/client/documents/*.graphql',
      preset: 'client',
      // persisted-documents.json: the trusted documents the gateway accepts by hash (TRUSTED_DOCUMENTS).
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: { useTypeImports: true, enumsAsTypes: true, strictScalars: true, scalars },
    },
    // The order-tracker page's documents, typed from the schema the SDK package ships (its
    // schema.graphql is this file, copied in by packages/client/build.mjs), as a frontend
    // outside this repository types them.
    'examples/order-tracker/src/gql/': {
      schema: 'schema.graphql',
      documents: 'examples/order-tracker/src/*.graphql',
      preset: 'client',
      // persisted-documents.json: the page's own trusted documents, which the gateway that
      // serves it accepts by hash beside the SDK's (TRUSTED_DOCUMENTS=only).
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
      config: { useTypeImports: true, enumsAsTypes: true, strictScalars: true, scalars },
    },
  },
};

export default config;
