// npm run deploy:check [folder]: the Kubernetes manifests (deploy/kubernetes/ unless a folder
// is given) checked offline, before any cluster sees them: kustomization.yaml lists every
// manifest of the folder and only those, each object is valid against the Kubernetes API's
// schema for its kind (kubernetes-models: the API's OpenAPI schemas, packaged for npm), and
// the gateway's image is this version of it (package.json's `version`, the tag `npm run image`
// builds). One line per object; a line per problem and exit 1 when there is any.
// test/unit/kubernetes.test.ts runs it, and checks the manifests against the gateway too.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as a manifest holds it. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** Where a workload keeps its containers. */
type Workload = { spec?: { template?: { spec?: { containers?: { name: string; image?: string }[] } } } };

/** The manifests the repository ships. */
export const MANIFESTS = fileURLToPath(new URL('kubernetes/', import.meta.url));
/** The gateway's image, as `npm run image` names it. */
export const IMAGE = 'order-graph';
const KUSTOMIZATION = 'kustomization.yaml';

/** The version `npm run image` tags the image with. */
export const packageVersion = (): string =>
  (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** YAML as kubectl reads it (1.1: yes and no are booleans), each document's errors as problems. */
function documentsOf(dir: string, file: string): { values: unknown[]; problems: string[] } {
  const documents = parseAllDocuments(readFileSync(join(dir, file), 'utf8'), { version: '1.1' });
  const list = Array.isArray(documents) ? documents : [];
  return {
    values: list.map((document) => document.toJS() as unknown).filter((value) => value != null),
    problems: list.flatMap((document) => document.errors.map((error) => `${file}: ${error.message.split('\n')[0]}`)),
  };
}

/** The objects of the manifests kustomization.yaml lists, with what is wrong with the list or the files. */
export function readManifests(dir = MANIFESTS): { objects: { file: string; object: KubernetesObject }[]; problems: string[] } {
  const files = readdirSync(dir).filter((name) => name.endsWith('.yaml') && name !== KUSTOMIZATION);
  const kustomization = documentsOf(dir, KUSTOMIZATION);
  const listed = (kustomization.values[0] as { resources?: string[] } | undefined)?.resources ?? [];
  const problems = [
    ...kustomization.problems,
    ...files.filter((file) => !listed.includes(file)).map((file) => `${KUSTOMIZATION}: does not list ${file}`),
    ...listed.filter((file) => !files.includes(file)).map((file) => `${KUSTOMIZATION}: lists ${file}, which is not there`),
  ];
  const objects = files
    .filter((file) => listed.includes(file))
    .flatMap((file) => {
      const { values, problems: fileProblems } = documentsOf(dir, file);
      problems.push(...fileProblems);
      return values.map((object) => ({ file, object: object as KubernetesObject }));
    });
  return { objects, problems };
}

/** What the Kubernetes schema of its kind finds wrong with an object ([] when nothing). */
export async function schemaProblems(object: KubernetesObject): Promise<string[]> {
  const models = (await import(`kubernetes-models/${object.apiVersion}`).catch(() => ({}))) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  const Model = models[object.kind];
  if (!Model) return [`no Kubernetes schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim()];
  }
}

/** The gateway's containers whose image is not `order-graph:<version>`. */
export function imageProblems(object: KubernetesObject, version: string): string[] {
  const containers = (object as Workload).spec?.template?.spec?.containers ?? [];
  return containers
    .filter(({ image = '' }) => image.split(':')[0]!.split('/').at(-1) === IMAGE && image !== `${IMAGE}:${version}`)
    .map(
      ({ name, image }) => `container ${name}: image ${image}, not ${IMAGE}:${version} (package.json's version, what npm run image builds)`,
    );
}

/** Every object checked: a line each, and the problems. */
export async function checkManifests(dir = MANIFESTS, version = packageVersion()): Promise<{ lines: string[]; problems: string[] }> {
  const { objects, problems } = readManifests(dir);
  const lines: string[] = [];
  for (const { file, object } of objects) {
    const name = `${file}: ${object.kind} ${object.metadata?.name}`;
    const found = [...(await schemaProblems(object)), ...imageProblems(object, version)];
    lines.push(`${found.length === 0 ? 'ok' : 'invalid'}  ${name}`);
    problems.push(...found.map((problem) => `${name}: ${problem}`));
  }
  return { lines, problems };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2] ?? MANIFESTS;
  const { lines, problems } = await checkManifests(dir);
  const under = relative(process.cwd(), dir);
  const shown = under.startsWith('..') ? dir : under || '.';
  for (const line of lines) console.log(line);
  for (const problem of problems) console.error(`deploy:check: ${problem}`);
  console.log(
    problems.length === 0
      ? `${shown}: ${lines.length} objects valid against the Kubernetes schemas, image ${IMAGE}:${packageVersion()}`
      : `${shown}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
}
