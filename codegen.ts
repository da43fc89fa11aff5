import type { CodegenConfig } from '@graphql-codegen/cli';

const scalars = { DateTime: 'string', Date: 'string', Decimal: 'string' };

const config: CodegenConfig = {
  schema: 'schema/*.graphql',
  emitLegacyCommonJSImports: false,
  generates: {
    // Resolver signatures: the parent of each type is the upstream JSON it is made from.
    'src/__generated__/resolvers-types.ts': {
      plugins: ['typescript', 'typescript-resolvers'],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        strictScalars: true,
        scalars,
        contextType: '../context.js#GraphQLContext',
        mapperTypeSuffix: 'Model',
        mappers: {
          TokenSet: '../upstream/models.js#TokenSet',
          Customer: '../upstream/models.js#User',
          Order: '../upstream/models.js#Order',
          Product: '../upstream/models.js#Product',
          Configuration: '../upstream/models.js#Configuration',
          Vehicle: '../upstream/models.js#VehicleDetails',
          Pickup: '../upstream/models.js#PickupCenter',
          Estimate: '../upstream/models.js#Estimate',
          Address: '../upstream/models.js#AnyAddress',
          Payment: '../upstream/models.js#Payment',
          TradeIn: '../resolvers/trade-in.js#TradeInParent',
          TradeInVehicle: '../upstream/models.js#TradeInVehicle',
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
  },
};

export default config;
