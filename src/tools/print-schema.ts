// Writes schema.graphql: the whole public schema in one file, for consumers' codegen and editors.
import { writeFileSync } from 'node:fs';
import { buildSchema, printSchema } from 'graphql';
import { loadTypeDefs } from '../graph/sdl.js';

const target = new URL('../../schema.graphql', import.meta.url);
const sdl = printSchema(buildSchema(loadTypeDefs().join('\n')));
writeFileSync(target, `# Generated from schema/*.graphql by \`npm run schema:print\`: do not edit.\n\n${sdl}\n`);
console.log(`wrote ${target.pathname}`);
