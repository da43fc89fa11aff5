// deploy/kubernetes/: every object checked against the Kubernetes schemas (kubernetes-models,
// offline, by deploy/check.ts, which `npm run deploy:check` runs), and against the gateway
// itself: its settings load, its probes and port are the gateway's, the drain fits in the
// grace period, the objects point at each other, only the GraphQL endpoint is public (the
// probes and /metrics reach the pods directly), and the image is the one `npm run image` builds.
// The nginx files beside them (deploy/nginx/) route what the Ingress routes, and nginx.conf's
// connections fit what the replicas accept.
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { checkManifests, MANIFESTS, readManifests, schemaProblems, type KubernetesObject } from '../../deploy/check.js';
import { DELIVERY_FINISHED_KEPT, DELIVERY_JOB_REDIS_BYTES } from '../../src/notify/delivery.js';
import { CONFIG_VARIABLES, envSchema, loadConfig } from '../../src/server/config.js';
import { HEALTH_PATH, READY_PATH } from '../../src/server/health.js';
import { TRACKER_PATH } from '../../src/server/tracker.js';
import { PROJECT_PATH, ROOT } from '../helpers/process.js';
import { argument, canRunAsOtherUsers, haveRedis, redisBytes, shippedRedis, startRedis } from '../helpers/redis.js';

// The gateway's endpoint (createGateway's graphqlEndpoint), the one path the public side serves.
const GRAPHQL_PATH = '/graphql';

type Manifest = KubernetesObject & { metadata: { name: string; labels?: Record<string, string> }; [key: string]: any };
const { objects: read, problems: listProblems } = readManifests();
const objects = read.map(({ file, object }) => ({ file, object: object as Manifest }));
const find = (kind: string, name: string) => objects.find(({ object }) => object.kind === kind && object.metadata.name === name)!.object;

const deployment = find('Deployment', 'order-graph');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const pod = deployment.spec.template.spec;
const container = pod.containers[0];
const settings = find('ConfigMap', 'order-graph').data as Record<string, string>;
const secrets = find('Secret', 'order-graph').stringData as Record<string, string>;
/** The settings whose description says they are secret (envSchema: `**Secret.**`). */
const SECRET_SETTINGS = Object.entries(envSchema.shape)
  .filter(([, schema]) => String(schema.meta()?.description ?? '').startsWith('**Secret.**'))
  .map(([name]) => name);
// What the image sets (Dockerfile ENV) under what the ConfigMap sets.
const imageEnv = Object.fromEntries(
  /^ENV (.+)$/m
    .exec(readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8'))![1]!
    .split(/\s+/)
    .map((pair) => pair.split('=') as [string, string]),
);

describe('deploy/kubernetes', () => {
  it('kustomization.yaml lists every manifest', () => {
    expect(listProblems).toEqual([]);
    expect(new Set(objects.map(({ file }) => file)).size).toBe(9);
  });

  it.each(objects.map(({ file, object }) => [`${file}: ${object.kind} ${object.metadata.name}`, object] as const))(
    '%s is valid against the Kubernetes schema',
    async (_, object) => {
      expect(await schemaProblems(object)).toEqual([]);
    },
  );

  it('the schema check catches mistakes (a string port, a missing selector, a kind it has no schema for)', async () => {
    const wrongPort = structuredClone(deployment);
    wrongPort.spec.template.spec.containers[0].ports[0].containerPort = '4000';
    expect(await schemaProblems(wrongPort)).toEqual([expect.stringMatching(/containerPort must be integer/)]);
    const noSelector = structuredClone(deployment);
    delete noSelector.spec.selector;
    expect(await schemaProblems(noSelector)).toEqual([expect.stringMatching(/selector/)]);
    expect(await schemaProblems({ ...deployment, kind: 'Deploymnet' })).toEqual(['no Kubernetes schema for apps/v1 Deploymnet']);
  });

  it('npm run deploy:check validates the manifests offline: a line per object, exit 0; exit 1 naming each problem in a broken copy', async () => {
    const run = (...args: string[]) =>
      promisify(execFile)('npm', ['run', '-s', 'deploy:check', '--', ...args], {
        cwd: ROOT,
        env: { PATH: PROJECT_PATH, HOME: process.env.HOME ?? '' },
      }).then(
        (done) => ({ code: 0, ...done }),
        (failed: { code: number; stdout: string; stderr: string }) => failed,
      );
    const shipped = await run();
    expect(shipped.code, shipped.stderr).toBe(0);
    expect(shipped.stdout.trimEnd().split('\n')).toEqual([
      ...objects.map(({ file, object }) => `ok  ${file}: ${object.kind} ${object.metadata.name}`),
      `deploy/kubernetes: ${objects.length} objects valid against the Kubernetes schemas, image order-graph:${version}`,
    ]);
    const broken = mkdtempSync(join(tmpdir(), 'order-graph-manifests-'));
    try {
      cpSync(MANIFESTS, broken, { recursive: true });
      const manifest = readFileSync(join(broken, 'deployment.yaml'), 'utf8');
      writeFileSync(
        join(broken, 'deployment.yaml'),
        manifest
          .replace('containerPort: 4000', 'containerPort: "4000"')
          .replace(`image: order-graph:${version}`, 'image: order-graph:latest'),
      );
      writeFileSync(join(broken, 'extra.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n');
      const failed = await run(broken);
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('invalid  deployment.yaml: Deployment order-graph');
      expect(failed.stderr.trimEnd().split('\n')).toEqual([
        'deploy:check: kustomization.yaml: does not list extra.yaml',
        expect.stringMatching(/^deploy:check: deployment\.yaml: Deployment order-graph: .*containerPort must be integer$/),
        `deploy:check: deployment.yaml: Deployment order-graph: container order-graph: image order-graph:latest, not order-graph:${version} (package.json's version, what npm run image builds)`,
      ]);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  }, 60_000);

  it('the settings are the gateway’s own, and it starts with them (production, all five upstream URLs)', () => {
    expect(Object.keys(settings).filter((name) => !CONFIG_VARIABLES.includes(name))).toEqual([]);
    const config = loadConfig({ ...imageEnv, ...settings });
    expect(config.upstreamUrls).not.toBeNull();
    expect(config.redisUrl).toBe('redis://order-graph-redis:6379');
    expect(container.envFrom).toEqual([{ configMapRef: { name: 'order-graph' } }, { secretRef: { name: 'order-graph' } }]);
  });

  it('the secrets are in the Secret and nowhere else, shipped empty: notifications off; filled, they start with the ConfigMap', () => {
    expect(SECRET_SETTINGS.toSorted()).toEqual(['NOTIFY_TOKEN_KEYS', 'SMTP_URL', 'VAPID_PRIVATE_KEY']);
    expect(Object.keys(secrets).toSorted()).toEqual(SECRET_SETTINGS.toSorted());
    expect(Object.values(secrets)).toEqual(SECRET_SETTINGS.map(() => ''));
    expect(Object.keys(settings).filter((name) => SECRET_SETTINGS.includes(name))).toEqual([]);
    expect(loadConfig({ ...imageEnv, ...settings, ...secrets }).notify).toBeNull();

    const filled = {
      NOTIFY_TOKEN_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}`,
      VAPID_PRIVATE_KEY: 'A'.repeat(43),
      SMTP_URL: 'smtps://user:password@smtp.example.com:465',
    };
    const notify = loadConfig({ ...imageEnv, ...settings, VAPID_PUBLIC_KEY: `B${'A'.repeat(86)}`, ...filled }).notify!;
    expect(notify).toMatchObject({
      demo: false,
      allowPrivateAddresses: false,
      pollIntervalMs: 300_000,
      trackerUrl: 'https://api.example.com/tracker/',
      emailFrom: 'Orders <orders@example.com>',
      smtpUrl: filled.SMTP_URL,
      vapid: { publicKey: `B${'A'.repeat(86)}`, privateKey: filled.VAPID_PRIVATE_KEY, subject: 'mailto:orders@example.com' },
    });
    // The link points at the Ingress's host.
    expect(new URL(notify.trackerUrl).host).toBe(find('Ingress', 'order-graph').spec.rules[0].host);
  });

  it('probes and port are the gateway’s: /healthz for liveness and start-up, /readyz for readiness, on the port it listens on', () => {
    const port = loadConfig({ ...imageEnv, ...settings }).port;
    expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
    expect(container.startupProbe.httpGet).toEqual({ path: HEALTH_PATH, port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: HEALTH_PATH, port: 'http' });
    expect(container.readinessProbe.httpGet).toEqual({ path: READY_PATH, port: 'http' });
  });

  it('only the GraphQL endpoint and the tracker page are public: the Ingress routes /graphql (Exact) and /tracker/ (Prefix) to the Service, as the shipped nginx file does, and neither resends a request', () => {
    const ingresses = objects.filter(({ object }) => object.kind === 'Ingress').map(({ object }) => object);
    expect(ingresses.map((ingress) => ingress.metadata.name)).toEqual(['order-graph']);
    const service = find('Service', 'order-graph');
    const paths = ingresses.flatMap((ingress) =>
      ingress.spec.rules.flatMap((rule: { http: { paths: { path: string; pathType: string; backend: unknown }[] } }) => rule.http.paths),
    );
    const backend = { service: { name: service.metadata.name, port: { name: service.spec.ports[0].name } } };
    expect(paths.every((path) => JSON.stringify(path.backend) === JSON.stringify(backend))).toBe(true);
    const routes = paths.map((path) => `${path.pathType === 'Exact' ? '=' : 'prefix'} ${path.path}`);
    expect(routes).toEqual([`= ${GRAPHQL_PATH}`, `prefix ${TRACKER_PATH}`]);
    // The nginx file's locations that pass requests on to the replicas: the same routes. A named
    // one (@…) is no route: only nginx's own error handling sends a request there.
    const nginx = readFileSync(new URL('../../deploy/nginx/order-graph.conf', import.meta.url), 'utf8');
    const proxied = [...nginx.matchAll(/location\s+(=\s+)?(\S+)\s*\{([^}]*)\}/g)]
      .filter(([, , path, body]) => !path!.startsWith('@') && /\bproxy_pass\b/.test(body!))
      .map(([, exact, path]) => `${exact ? '=' : 'prefix'} ${path}`);
    expect(proxied).toEqual(routes);
    // The Ingress's host is one the gateway answers for.
    const { allowedHosts } = loadConfig({ ...imageEnv, ...settings });
    expect(
      ingresses
        .flatMap((ingress) => ingress.spec.rules.map((rule: { host: string }) => rule.host))
        .every((host: string) => allowedHosts === 'any' || allowedHosts.includes(host)),
    ).toBe(true);
    // Neither resends a request a replica had: nginx's own retries are off in both.
    expect(nginx).toMatch(/^\s*proxy_next_upstream off;/m);
    const annotations = (ingress: (typeof ingresses)[number]) => (ingress.metadata as { annotations?: Record<string, string> }).annotations;
    expect(ingresses.map((ingress) => annotations(ingress)?.['nginx.ingress.kubernetes.io/proxy-next-upstream'])).toEqual(['off']);
    // No default backend either: anything else is the ingress controller's own 404.
    expect(ingresses.every((ingress) => ingress.spec.defaultBackend === undefined)).toBe(true);
    // What must stay off the public side is not that path.
    const { metricsPath } = loadConfig({ ...imageEnv, ...settings });
    for (const internal of [HEALTH_PATH, READY_PATH, metricsPath]) expect(internal).not.toBe(GRAPHQL_PATH);
  });

  it('nginx.conf holds every connection the replicas in order-graph.conf accept, in one worker: two each (client and replica side), and a file handle for each twice over', () => {
    const read = (file: string) => readFileSync(new URL(`../../deploy/nginx/${file}`, import.meta.url), 'utf8').replace(/#[^\n]*/g, '');
    const number = (text: string, directive: string) => Number(new RegExp(`\\b${directive}\\s+(\\d+);`).exec(text)?.[1]);
    const main = read('nginx.conf');
    const replicas = [...read('order-graph.conf').matchAll(/^\s*server\s+\S+:\d+;/gm)].length;
    const { maxConnections } = loadConfig({ ...imageEnv, ...settings });
    expect(replicas).toBe(3);
    expect(number(main, 'worker_connections')).toBeGreaterThanOrEqual(2 * replicas * maxConnections);
    expect(number(main, 'worker_rlimit_nofile')).toBeGreaterThanOrEqual(2 * number(main, 'worker_connections'));
    // The site file is the main file's, beside it.
    expect(main).toMatch(/^\s*include order-graph\.conf;/m);
  });

  it('the probes and Prometheus reach each pod on its own port: probes on the container port, scrape annotations naming that port and METRICS_PATH', () => {
    const { metricsPath, port } = loadConfig({ ...imageEnv, ...settings });
    expect(deployment.spec.template.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(port),
      'prometheus.io/path': metricsPath,
    });
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe])
      expect(probe.httpGet.port).toBe(container.ports[0].name);
  });

  it('the gateway’s port admits only the ingress controller’s namespace and the monitoring namespace (the kubelet’s probes come from the node)', () => {
    const policy = find('NetworkPolicy', 'order-graph');
    expect(policy.spec.podSelector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    const rules = policy.spec.ingress as { from?: Record<string, unknown>[]; ports?: { port: string | number }[] }[];
    // A rule without `from` (or an empty one) admits everyone; one without `ports`, every port.
    for (const rule of rules) {
      expect(rule.from?.length).toBeGreaterThan(0);
      expect(rule.ports).toEqual([{ port: 'http' }]);
    }
    const sources = rules.flatMap((rule) => rule.from!);
    expect(sources).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
    ]);
    expect(container.ports[0].name).toBe('http');
  });

  it('the grace period holds the preStop pause and the whole drain', () => {
    const { shutdownGraceMs } = loadConfig({ ...imageEnv, ...settings });
    const pauseMs = container.lifecycle.preStop.sleep.seconds * 1000;
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(pauseMs + shutdownGraceMs);
  });

  it('non-root, read-only root filesystem, no privilege escalation, resources set: for the gateway and for Redis', () => {
    for (const spec of [pod, find('Deployment', 'order-graph-redis').spec.template.spec]) {
      expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const each of spec.containers) {
        expect(each.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(each.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
        expect(each.resources.limits.memory).toEqual(expect.any(String));
      }
    }
    // The image's user (node, uid 1000) is the one the pod runs as.
    expect(pod.securityContext.runAsUser).toBe(1000);
  });

  it('the objects point at each other: Service, HPA, PDB and NetworkPolicy at the pods, REDIS_URL at the Redis Service', () => {
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    const service = find('Service', 'order-graph');
    expect(service.spec.selector).toEqual(labels);
    expect(container.ports.map((p: { name: string }) => p.name)).toContain(service.spec.ports[0].targetPort);
    expect(find('HorizontalPodAutoscaler', 'order-graph').spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'order-graph',
    });
    expect(find('PodDisruptionBudget', 'order-graph').spec.selector.matchLabels).toEqual(labels);
    const redisService = find('Service', 'order-graph-redis');
    const redisUrl = new URL(settings.REDIS_URL!);
    expect([redisUrl.hostname, Number(redisUrl.port)]).toEqual([redisService.metadata.name, redisService.spec.ports[0].port]);
    const policy = find('NetworkPolicy', 'order-graph-redis');
    expect(policy.spec.podSelector.matchLabels).toEqual(redisService.spec.selector);
    expect(policy.spec.ingress[0].from[0].podSelector.matchLabels).toEqual(labels);
  });

  it('Redis: cached answers, histories, notification records and queued messages cannot evict the counters (noeviction; maxmemory at least 4 × RESPONSE_CACHE_BYTES + 2 × HISTORY_BYTES + NOTIFY_BYTES + the queue at its fullest, under the container limit)', () => {
    const { args, memoryLimit } = shippedRedis();
    expect(argument(args, '--maxmemory-policy')).toBe('noeviction');
    const maxmemory = redisBytes(argument(args, '--maxmemory')!);
    // The shipped settings with notifications on (their keys are the Secret's, shipped empty).
    const { responseCacheBytes, history, notify } = loadConfig({ ...imageEnv, ...settings, NOTIFY_TOKEN_KEYS: `k1:${'A'.repeat(43)}=` });
    const queue = (notify!.queueJobs + 2 * DELIVERY_FINISHED_KEPT) * DELIVERY_JOB_REDIS_BYTES;
    expect(maxmemory).toBeGreaterThanOrEqual(4 * responseCacheBytes.total + 2 * history!.totalBytes + notify!.totalBytes + queue);
    expect(responseCacheBytes.entry).toBeLessThanOrEqual(responseCacheBytes.total);
    // Redis's own use (clients, fragmentation) comes on top of maxmemory.
    const limitMi = /^(\d+)Mi$/.exec(memoryLimit);
    expect(limitMi, `memory limit ${memoryLimit} in Mi`).not.toBeNull();
    expect(Number(limitMi![1]) * 1024 ** 2).toBeGreaterThan(maxmemory * 1.2);
  });

  it('Redis keeps the order histories on a volume: append-only, written every second, no snapshot; one pod at a time on it', () => {
    const { args } = shippedRedis();
    expect([argument(args, '--appendonly'), argument(args, '--appendfsync'), argument(args, '--save')]).toEqual(['yes', 'everysec', '']);
    const redis = find('Deployment', 'order-graph-redis');
    const mount = redis.spec.template.spec.containers[0].volumeMounts.find(
      (candidate: { mountPath: string }) => candidate.mountPath === '/data',
    );
    const volume = redis.spec.template.spec.volumes.find((candidate: { name: string }) => candidate.name === mount.name);
    const claim = find('PersistentVolumeClaim', volume.persistentVolumeClaim.claimName);
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(redis.spec.strategy.type).toBe('Recreate');
  });

  // A volume is created root-owned (most provisioners); Redis runs as uid 999 and cannot create
  // its append-only file there unless the kubelet gives the volume to the pod's fsGroup.
  const redisPod = () => find('Deployment', 'order-graph-redis').spec.template.spec;

  it('Redis can write its volume: the pod’s fsGroup is the group it runs as, the volume changed only when its root does not match (a restart does not walk the files)', () => {
    const { securityContext } = redisPod();
    expect(securityContext).toMatchObject({ runAsUser: 999, fsGroup: securityContext.runAsGroup, fsGroupChangePolicy: 'OnRootMismatch' });
  });

  it.skipIf(!haveRedis || !canRunAsOtherUsers)(
    'proved with redis-server and the shipped arguments as the pod’s user on a root-owned folder: refused without fsGroup; with the group as the kubelet sets it, it writes its append-only file and reads it back after a restart',
    async () => {
      const { runAsUser: uid, runAsGroup: gid, fsGroup } = redisPod().securityContext;
      const volume = mkdtempSync(join(tmpdir(), 'order-graph-redis-volume-'));
      try {
        chmodSync(volume, 0o755);
        const withoutGroup = startRedis({ args: shippedRedis().args, dir: volume, user: { uid, gid, groups: [] } });
        await expect(withoutGroup).rejects.toThrow(/append-only dir appendonlydir: Permission denied/);
        expect(fsGroup, 'the Redis pod’s fsGroup').toEqual(expect.any(Number));
        // What fsGroup does to the volume's root (the kubelet's SetVolumeOwnership): its group, group rwx, setgid.
        chownSync(volume, 0, fsGroup);
        chmodSync(volume, 0o2775);
        const redis = await startRedis({ args: shippedRedis().args, dir: volume, user: { uid, gid, groups: [fsGroup] } });
        try {
          const client = new Redis(redis.url);
          await client.set('order-graph:history:kept', 'a history');
          client.disconnect();
          expect(readdirSync(join(volume, 'appendonlydir')).some((name) => name.endsWith('.incr.aof'))).toBe(true);
          await redis.kill();
          await redis.start();
          const again = new Redis(redis.url);
          expect(await again.get('order-graph:history:kept')).toBe('a history');
          again.disconnect();
        } finally {
          await redis.close();
        }
      } finally {
        if (existsSync(volume)) rmSync(volume, { recursive: true, force: true });
      }
    },
    30_000,
  );

  it('the pod runs the image’s command (the launcher), which gives V8 three quarters of the memory limit', async () => {
    expect([container.command, container.args]).toEqual([undefined, undefined]);
    const launcher = '../../src/tools/heap-flags.mjs';
    const { heapFlags } = (await import(launcher)) as { heapFlags: (env: object, limitBytes: number, machineBytes: number) => string[] };
    const limitMi = Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)![1]);
    const flag = (flags: string[], name: string) => Number(flags.find((f) => f.startsWith(`--${name}=`))!.split('=')[1]);
    const flags = heapFlags({}, limitMi * 2 ** 20, Number.MAX_SAFE_INTEGER);
    expect(flag(flags, 'max-old-space-size') + 3 * flag(flags, 'max-semi-space-size')).toBe(Math.floor(limitMi * 0.75));
  });

  it('the image is this version of the gateway: the tag npm run image builds, and the one docs/production.md runs', async () => {
    expect(container.image).toBe(`order-graph:${version}`);
    expect((await checkManifests()).problems).toEqual([]);
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    // npm gives a script the package's version as npm_package_version.
    expect(scripts.image).toBe('docker build -t order-graph:$npm_package_version .');
    const production = readFileSync(join(ROOT, 'docs/production.md'), 'utf8');
    // Every tagged image the page names (its Redis keys, order-graph:<kind>:…, are not images).
    const named = [...production.matchAll(/\border-graph:\d[\w.-]*\w/g)].map((match) => match[0]);
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named)).toEqual(new Set([`order-graph:${version}`]));
    expect(production).toContain('npm run image');
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^# +npm run image\b/m);
  });
});
