// The Helm chart and the dev infrastructure manifests, checked offline: helm lint, helm template
// with the default values and with every charts/underdog/ci/*.yaml (what SREs actually set), and
// validation of every rendered object against the Kubernetes 1.31 OpenAPI schemas embedded in
// kubectl-validate (no cluster, no schema download). helm and kubectl-validate are built from
// source by tools/helm/ensure-*.sh on first use (a few minutes, then cached). If they cannot be
// installed, every test here fails: none is skipped.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allTopics } from '@underdog/platform';
import {
  chartDir,
  dashboardMetricNames,
  ensureTool,
  Helm,
  repoRoot,
  run,
  type ComponentFacts,
  type TopicFacts,
} from './helm-support';

const kubeVersion = '1.31.0';
// kubectl-validate names its embedded schema sets by minor version; "1.31.0" would send it to GitHub.
const schemaVersion = '1.31';
const ciDir = join(chartDir, 'ci');
const ciFiles = readdirSync(ciDir)
  .filter((name) => name.endsWith('.yaml'))
  .sort();

interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string };
  };
}

interface Probe {
  httpGet?: { path: string; port: string | number };
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } };
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string }[];
}

interface PodSpec {
  automountServiceAccountToken?: boolean;
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    seccompProfile?: { type: string };
  };
  containers: Container[];
  volumes?: { name: string; emptyDir?: object }[];
}

/** A Deployment or StatefulSet: what the test reads of its pod template. */
interface Workload extends Manifest {
  spec: {
    replicas?: number;
    template: {
      metadata: Metadata;
      spec: {
        automountServiceAccountToken?: boolean;
        securityContext?: {
          runAsNonRoot?: boolean;
          runAsUser?: number;
          seccompProfile?: { type: string };
        };
        containers: Container[];
        volumes?: { name: string; emptyDir?: object }[];
      };
    };
  };
}

interface ConfigMap extends Manifest {
  data: Record<string, string>;
}

interface Service extends Manifest {
  spec: { selector: Record<string, string>; ports: { name: string; port: number }[] };
}

interface HorizontalPodAutoscaler extends Manifest {
  spec: { scaleTargetRef: { name: string }; minReplicas: number; maxReplicas: number };
}

interface Ingress extends Manifest {
  spec: {
    rules: {
      host?: string;
      http: { paths: { path: string; backend: { service: { name: string } } }[] };
    }[];
  };
}

interface Job extends Manifest {
  spec: { template: { spec: PodSpec } };
}

interface NetworkPolicyPeer {
  podSelector?: { matchLabels: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
  ipBlock?: { cidr: string };
}

interface NetworkPolicy extends Manifest {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: { from: NetworkPolicyPeer[]; ports: { port: string | number }[] }[];
    egress: { to?: NetworkPolicyPeer[]; ports: { port: number; protocol: string }[] }[];
  };
}

interface GrafanaDashboard {
  uid: string;
  schemaVersion: number;
  panels: { id: number; title: string; targets: { expr: string }[] }[];
}

let helm: Helm;
let kubectlValidate: string;
let crdDir: string;
/** components.yaml, keyed by values key (gateway, gameEngine, web, ...). */
let facts: Record<string, ComponentFacts>;
let catalog: TopicFacts[];

/** `helm template` of the chart as release "underdog" in namespace "underdog". */
function render(...args: string[]): string {
  return helm.run([
    'template',
    'underdog',
    chartDir,
    '--namespace',
    'underdog',
    '--kube-version',
    kubeVersion,
    ...args,
  ]);
}

function parseManifests(yaml: string): Manifest[] {
  return helm.parseYaml<Manifest>(yaml);
}

/** Validates manifests offline; any attempt to reach the network fails through a dead proxy. */
function validate(...paths: string[]): void {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: join(helm.workDir, 'no-kubeconfig'),
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '',
  };
  try {
    run(
      kubectlValidate,
      ['--version', schemaVersion, '--local-crds', crdDir, '--output', 'human', ...paths],
      env,
    );
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `kubectl-validate rejected ${paths.join(' ')}:\n${stdout ?? ''}${stderr ?? ''}`,
    );
  }
}

function writeRendering(name: string, yaml: string): string {
  const path = join(helm.workDir, `${name}.yaml`);
  writeFileSync(path, yaml);
  return path;
}

function find<T extends Manifest>(manifests: Manifest[], kind: string, name: string): T {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) {
    const present = manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ');
    throw new Error(`no ${kind} named ${name}; rendered: ${present}`);
  }
  return found as T;
}

function ofKind<T extends Manifest>(manifests: Manifest[], kind: string): T[] {
  return manifests.filter((m) => m.kind === kind) as T[];
}

function container(deployment: Workload): Container {
  const [first] = deployment.spec.template.spec.containers;
  if (!first) throw new Error(`${deployment.metadata.name} has no container`);
  return first;
}

/** Every pod spec of a rendering: Deployments, Jobs (hooks) and bare Pods (helm test). */
function podSpecs(manifests: Manifest[]): { owner: string; spec: PodSpec }[] {
  return manifests.flatMap((m) => {
    const owner = `${m.kind}/${m.metadata.name}`;
    if (m.kind === 'Deployment' || m.kind === 'StatefulSet' || m.kind === 'Job') {
      return [{ owner, spec: (m as Workload).spec.template.spec as PodSpec }];
    }
    if (m.kind === 'Pod') return [{ owner, spec: (m as unknown as { spec: PodSpec }).spec }];
    return [];
  });
}

/** The components that are not static files: they have an environment and /metrics. */
function processes(): [string, ComponentFacts][] {
  return Object.entries(facts).filter(([, c]) => !c.static);
}

/** `topic <name> <partitions> <config>,<config>` lines of the topics Job's script. */
function topicJobLines(manifests: Manifest[]) {
  const job = find<Job>(manifests, 'Job', 'underdog-topics');
  const script = job.spec.template.spec.containers[0]?.command?.join('\n') ?? '';
  return [...script.matchAll(/^\s*topic (\S+) (\d+) (\S+)$/gm)].map(
    ([, name, partitions, configs]) => ({
      name,
      partitions: Number(partitions),
      configs: Object.fromEntries((configs ?? '').split(',').map((entry) => entry.split('='))),
    }),
  );
}

beforeAll(() => {
  helm = new Helm();
  kubectlValidate = ensureTool('ensure-kubectl-validate.sh');
  crdDir = ensureTool('ensure-crds.sh');
  facts = helm.parseDocument<{ components: Record<string, ComponentFacts> }>(
    readFileSync(join(chartDir, 'components.yaml'), 'utf8'),
  ).components;
  catalog = helm.parseDocument<{ topics: TopicFacts[] }>(
    readFileSync(join(chartDir, 'topics.yaml'), 'utf8'),
  ).topics;
}, 60 * 60_000);

afterAll(() => helm?.dispose());

describe('charts/underdog', () => {
  let defaults: Manifest[];
  let defaultsYaml: string;
  /** The rendering of each ci/*.yaml values file. */
  const ci = new Map<string, { yaml: string; manifests: Manifest[] }>();

  beforeAll(() => {
    defaultsYaml = render();
    defaults = parseManifests(defaultsYaml);
    for (const file of ciFiles) {
      const yaml = render('--values', join(ciDir, file));
      ci.set(file, { yaml, manifests: parseManifests(yaml) });
    }
  });

  /** The rendering of ci/<file>. */
  function ciRendering(file: string): Manifest[] {
    const rendering = ci.get(file);
    if (!rendering) throw new Error(`charts/underdog/ci/${file} is missing`);
    return rendering.manifests;
  }

  function everyRendering(): [string, Manifest[]][] {
    return [
      ['defaults', defaults],
      ...[...ci].map(([file, r]): [string, Manifest[]] => [file, r.manifests]),
    ];
  }

  it('passes helm lint --strict with the defaults and with each ci/*.yaml', () => {
    expect(ciFiles.length).toBeGreaterThanOrEqual(2);
    for (const values of [[], ...ciFiles.map((file) => ['--values', join(ciDir, file)])]) {
      const output = helm.run([
        'lint',
        chartDir,
        '--strict',
        '--kube-version',
        kubeVersion,
        ...values,
      ]);
      expect(output).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it('validates the defaults and each ci/*.yaml rendering against the Kubernetes 1.31 schemas offline', () => {
    validate(
      writeRendering('defaults', defaultsYaml),
      ...[...ci].map(([file, r]) => writeRendering(`ci-${file.replace(/\.yaml$/, '')}`, r.yaml)),
    );
  });

  it('has a ci/*.yaml with autoscaling, the ingress, network policies, ServiceMonitors and the dashboard on', () => {
    const manifests = ciRendering('production-values.yaml');
    const kinds = new Set(manifests.map((m) => m.kind));
    for (const kind of ['HorizontalPodAutoscaler', 'Ingress', 'NetworkPolicy', 'ServiceMonitor']) {
      expect({ kind, rendered: kinds.has(kind) }).toEqual({ kind, rendered: true });
    }
    find(manifests, 'ConfigMap', 'underdog-dashboard');
  });

  it('renders a workload and a Service for every component of components.yaml, the web app included', () => {
    expect(Object.keys(facts).sort()).toEqual(
      ['ads', 'auth', 'gameEngine', 'gateway', 'notification', 'tournament', 'web'].sort(),
    );
    for (const { name, port, static: isStatic } of Object.values(facts)) {
      const deployment = find<Workload>(defaults, 'Deployment', `underdog-${name}`);
      const service = find<Service>(defaults, 'Service', `underdog-${name}`);
      if (!isStatic) find<ConfigMap>(defaults, 'ConfigMap', `underdog-${name}`);

      // Every process but the static web app serves /metrics on a port of its own (METRICS_PORT).
      const metrics = isStatic ? [] : [{ name: 'metrics', port: 9464 }];
      expect(container(deployment).ports).toEqual([
        expect.objectContaining({ name: 'http', containerPort: port }),
        ...metrics.map((m) => expect.objectContaining({ name: m.name, containerPort: m.port })),
      ]);
      expect(service.spec.ports).toEqual([
        expect.objectContaining({ name: 'http', port }),
        ...metrics.map((m) => expect.objectContaining(m)),
      ]);
      expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    }
    expect(ofKind(defaults, 'Deployment')).toHaveLength(Object.keys(facts).length);
    expect(container(find<Workload>(defaults, 'Deployment', 'underdog-web')).image).toBe(
      'underdog/web:0.1.0',
    );
  });

  it('gives every container of every rendering resources and a non-root, read-only security context', () => {
    for (const [rendering, manifests] of everyRendering()) {
      const pods = podSpecs(manifests);
      expect(pods.map((p) => p.owner)).toContain('Job/underdog-topics');
      for (const { owner, spec } of pods) {
        const where = `${rendering}: ${owner}`;
        expect({ where, pod: spec.securityContext }).toMatchObject({
          where,
          pod: { runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } },
        });
        expect({ where, token: spec.automountServiceAccountToken }).toEqual({
          where,
          token: false,
        });
        for (const c of spec.containers) {
          expect({ where, securityContext: c.securityContext }).toMatchObject({
            where,
            securityContext: {
              readOnlyRootFilesystem: true,
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
            },
          });
          expect({ where, resources: c.resources }).toMatchObject({
            where,
            resources: {
              requests: { cpu: expect.any(String) as string, memory: expect.any(String) as string },
              limits: { memory: expect.any(String) as string },
            },
          });
        }
      }
      for (const deployment of ofKind<Workload>(manifests, 'Deployment')) {
        const pod = deployment.spec.template.spec;
        for (const c of pod.containers) {
          expect(c.securityContext).toMatchObject({ runAsNonRoot: true });
          expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        }
        expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'tmp' }));
      }
    }
  });

  it('probes /healthz for startup and liveness and /readyz for readiness on every Deployment', () => {
    for (const [rendering, manifests] of everyRendering()) {
      for (const deployment of ofKind<Workload>(manifests, 'Deployment')) {
        for (const c of deployment.spec.template.spec.containers) {
          expect({
            rendering,
            name: deployment.metadata.name,
            probes: [c.startupProbe?.httpGet, c.livenessProbe?.httpGet, c.readinessProbe?.httpGet],
          }).toEqual({
            rendering,
            name: deployment.metadata.name,
            probes: [
              { path: '/healthz', port: 'http' },
              { path: '/healthz', port: 'http' },
              { path: '/readyz', port: 'http' },
            ],
          });
        }
      }
    }
  });

  it('annotates pods with the checksum of their ConfigMap and rolls only the changed component', () => {
    const checksums = (manifests: Manifest[]) =>
      Object.fromEntries(
        ofKind<Workload>(manifests, 'Deployment').map((d) => [
          d.metadata.name,
          d.spec.template.metadata.annotations?.['checksum/config'],
        ]),
      );
    const before = checksums(defaults);
    for (const [, { name }] of processes()) {
      expect(before[`underdog-${name}`]).toMatch(/^[0-9a-f]{64}$/);
    }

    const after = checksums(parseManifests(render('--set', 'auth.env.FEATURE_FLAG=on')));
    expect(after['underdog-auth']).not.toBe(before['underdog-auth']);
    for (const [key, { name }] of Object.entries(facts).filter(([key]) => key !== 'auth')) {
      expect({ key, checksum: after[`underdog-${name}`] }).toEqual({
        key,
        checksum: before[`underdog-${name}`],
      });
    }
  });

  it('gives each component the environment its code reads', () => {
    const config = (name: string) =>
      find<ConfigMap>(defaults, 'ConfigMap', `underdog-${name}`).data;
    for (const [, { name, port, uses }] of processes()) {
      expect(config(name)).toMatchObject({
        PORT: String(port),
        HOST: '0.0.0.0',
        LOG_LEVEL: 'info',
        NODE_ENV: 'production',
      });
      expect(Object.keys(config(name)).includes('KAFKA_BROKERS')).toBe(uses.includes('kafka'));
      const env = container(find<Workload>(defaults, 'Deployment', `underdog-${name}`)).env;
      expect(env).toContainEqual({
        name: 'INSTANCE_ID',
        valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
      });
    }
    expect(config('gateway')).toMatchObject({
      KAFKA_BROKERS: 'kafka:9092',
      REDIS_URL: 'redis://redis:6379',
      AUTH_URL: 'http://underdog-auth:8081',
      TOURNAMENT_URL: 'http://underdog-tournament:8082',
      GAME_ENGINE_URL: 'http://underdog-game-engine:8083',
      ADS_URL: 'http://underdog-ads:8084',
      NOTIFICATION_URL: 'http://underdog-notification:8085',
      // The waiting room and per-socket caps (issue 37), the code's defaults.
      WEBSOCKET_VISITOR_SHARE: '0.1',
      WEBSOCKET_MAX_CONNECTIONS_PER_PREFIX: '1000',
      WEBSOCKET_FIRST_MESSAGE_TIMEOUT_MS: '5000',
      WEBSOCKET_MAX_SUBSCRIPTIONS_PER_SOCKET: '4',
    });
    expect(config('auth')).toMatchObject({
      MONGO_URL: 'mongodb://mongo:27017',
      MONGO_DB: 'underdog-auth',
      REDIS_URL: 'redis://redis:6379',
      ADMIN_EMAIL: 'admin@underdog.local',
    });
    expect(config('tournament')).toMatchObject({ MONGO_DB: 'underdog-tournament' });
    expect(config('tournament')).not.toHaveProperty('REDIS_URL');
    expect(config('game-engine')).toMatchObject({
      KAFKA_BROKERS: 'kafka:9092',
      REDIS_URL: 'redis://redis:6379',
    });
    expect(config('game-engine')).toMatchObject({
      MONGO_URL: 'mongodb://mongo:27017',
      MONGO_DB: 'underdog-game-engine',
    });
    expect(config('ads')).toMatchObject({ MONGO_DB: 'underdog-ads' });
    expect(config('notification')).toMatchObject({
      SMTP_URL: 'smtp://mailpit:1025',
      MAIL_FROM: 'Underdog <no-reply@underdog.local>',
    });
    // nginx reads no environment: the web app gets none.
    const web = container(find<Workload>(defaults, 'Deployment', 'underdog-web'));
    expect([web.env, web.envFrom]).toEqual([undefined, undefined]);
    expect(ofKind(defaults, 'ConfigMap').map((m) => m.metadata.name)).not.toContain('underdog-web');

    const authEnv = container(find<Workload>(defaults, 'Deployment', 'underdog-auth')).env;
    expect(authEnv).toContainEqual({
      name: 'ADMIN_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'underdog-admin', key: 'admin-password' } },
    });
    find(defaults, 'Secret', 'underdog-admin');
  });

  it('takes URLs that carry credentials from existing Secrets instead of the ConfigMaps', () => {
    const manifests = ciRendering('production-values.yaml');
    const auth = find<Workload>(manifests, 'Deployment', 'underdog-auth');
    expect(container(auth).env).toEqual(
      expect.arrayContaining([
        {
          name: 'REDIS_URL',
          valueFrom: { secretKeyRef: { name: 'underdog-redis', key: 'redis-url' } },
        },
        {
          name: 'MONGO_URL',
          valueFrom: { secretKeyRef: { name: 'underdog-mongo', key: 'mongo-url' } },
        },
        {
          name: 'ADMIN_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'underdog-admin', key: 'admin-password' } },
        },
      ]),
    );
    const notification = find<Workload>(manifests, 'Deployment', 'underdog-notification');
    expect(container(notification).env).toContainEqual({
      name: 'SMTP_URL',
      valueFrom: { secretKeyRef: { name: 'underdog-smtp', key: 'smtp-url' } },
    });
    for (const configMap of ofKind<ConfigMap>(manifests, 'ConfigMap')) {
      expect(Object.keys(configMap.data)).not.toEqual(
        expect.arrayContaining([expect.stringMatching(/^(REDIS|MONGO|SMTP)_URL$/)]),
      );
    }
    expect(ofKind(manifests, 'Secret')).toEqual([]);
  });

  it('connects every component that uses Redis through Sentinel when redis.sentinel is on', () => {
    const manifests = ciRendering('sentinel-values.yaml');
    const sentinels = [0, 1, 2]
      .map((i) => `redis-sentinel-${i}.redis-sentinel-headless:26379`)
      .join(',');
    for (const [, component] of processes()) {
      const usesRedis = component.uses.includes('redis');
      const configMap = find<ConfigMap>(manifests, 'ConfigMap', `underdog-${component.name}`);
      const env = container(
        find<Workload>(manifests, 'Deployment', `underdog-${component.name}`),
      ).env;
      expect({
        component: component.name,
        sentinels: configMap.data.REDIS_SENTINELS,
        name: configMap.data.REDIS_SENTINEL_NAME,
        password: env?.find((variable) => variable.name === 'REDIS_SENTINEL_PASSWORD'),
      }).toEqual({
        component: component.name,
        sentinels: usesRedis ? sentinels : undefined,
        name: usesRedis ? 'myprimary' : undefined,
        password: usesRedis
          ? {
              name: 'REDIS_SENTINEL_PASSWORD',
              valueFrom: {
                secretKeyRef: { name: 'underdog-redis-sentinel', key: 'sentinel-password' },
              },
            }
          : undefined,
      });
      const policy = find<NetworkPolicy>(manifests, 'NetworkPolicy', `underdog-${component.name}`);
      const ports = policy.spec.egress.flatMap((rule) => rule.ports.map((p) => p.port));
      expect({ component: component.name, sentinelPort: ports.includes(26379) }).toEqual({
        component: component.name,
        sentinelPort: usesRedis,
      });
    }
    // A failover may lose an unreplicated withdrawal: the gateway waits for one replica (WAIT).
    const withdrawal = (rendering: Manifest[]) => {
      const data = find<ConfigMap>(rendering, 'ConfigMap', 'underdog-gateway').data;
      return [data.VOTE_WITHDRAWAL_REPLICAS, data.VOTE_WITHDRAWAL_WAIT_MS];
    };
    expect(withdrawal(manifests)).toEqual(['1', '500']);
    expect(withdrawal(defaults)).toEqual(['0', '500']);
    const explicit = join(helm.workDir, 'sentinel-withdrawal.yaml');
    writeFileSync(explicit, 'gateway:\n  voteWithdrawal:\n    replicas: 2\n    waitMs: 250\n');
    expect(withdrawal(parseManifests(render('--values', explicit)))).toEqual(['2', '250']);
    const enabledWithoutHosts = join(helm.workDir, 'sentinel-without-hosts.yaml');
    writeFileSync(enabledWithoutHosts, 'redis:\n  sentinel:\n    enabled: true\n');
    expect(() => render('--values', enabledWithoutHosts)).toThrow(/hosts/);
  });

  it('autoscales the gateway on CPU and connections and the engine on CPU, the HPA owning the replica count', () => {
    const manifests = ciRendering('production-values.yaml');
    const hpas = ofKind<HorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual([
      'underdog-game-engine',
      'underdog-gateway',
    ]);
    const gateway = find<HorizontalPodAutoscaler & { spec: { metrics: unknown[] } }>(
      manifests,
      'HorizontalPodAutoscaler',
      'underdog-gateway',
    );
    expect(gateway.spec.metrics).toEqual([
      expect.objectContaining({
        type: 'Resource',
        resource: expect.objectContaining({ name: 'cpu' }) as unknown,
      }),
      {
        type: 'Pods',
        pods: {
          metric: { name: 'underdog_websocket_connections' },
          target: { type: 'AverageValue', averageValue: '5000' },
        },
      },
    ]);
    // A replicas field would fight the HPA on every upgrade.
    for (const name of ['underdog-gateway', 'underdog-game-engine']) {
      expect(find<Workload>(manifests, 'Deployment', name).spec.replicas).toBeUndefined();
    }
    for (const [, { name }] of Object.entries(facts)) {
      find(manifests, 'PodDisruptionBudget', `underdog-${name}`);
    }
  });

  it('caps engine replicas at the partitions of the topics it consumes, in every rendering', () => {
    const engine = facts.gameEngine;
    expect(engine?.consumes).toEqual(['tournament.lifecycle', 'game.votes']);
    const limit = Math.min(
      ...(engine?.consumes ?? []).map(
        (topic) => catalog.find((t) => t.name === topic)?.partitions ?? 0,
      ),
    );
    expect(limit).toBe(12);
    for (const [rendering, manifests] of everyRendering()) {
      const hpa = manifests.find(
        (m) => m.kind === 'HorizontalPodAutoscaler' && m.metadata.name === 'underdog-game-engine',
      ) as HorizontalPodAutoscaler | undefined;
      const replicas =
        hpa?.spec.maxReplicas ??
        find<Workload>(manifests, 'Deployment', 'underdog-game-engine').spec.replicas;
      expect({ rendering, atMostPartitions: (replicas ?? 0) <= limit }).toEqual({
        rendering,
        atMostPartitions: true,
      });
    }
  });

  it('refuses to render more engine replicas than partitions, from --set or from a values file', () => {
    expect(() => render('--set', 'gameEngine.replicaCount=13')).toThrow(/maximum: got 13, want 12/);
    const tooMany = join(helm.workDir, 'too-many-engines.yaml');
    writeFileSync(tooMany, 'gameEngine:\n  autoscaling:\n    enabled: true\n    maxReplicas: 13\n');
    expect(() => render('--values', tooMany)).toThrow(/maximum: got 13, want 12/);
    // The template guard holds even when schema validation is skipped, and names the topics.
    expect(() => render('--skip-schema-validation', '--values', tooMany)).toThrow(
      /at most 12 replicas of game-engine can do work \(one per partition of tournament\.lifecycle, game\.votes\)/,
    );
  });

  it('keeps topics.yaml equal to the catalog of packages/platform/src/topics.ts', () => {
    const expected = allTopics.map(({ name, partitions, compacted }) => ({
      name,
      partitions,
      ...(compacted ? { compacted } : {}),
    }));
    expect(catalog).toEqual(expected);
  });

  it("creates exactly the catalog's topics in a pre-install hook Job, replicated for production by default", () => {
    const job = find<Job>(defaults, 'Job', 'underdog-topics');
    expect(job.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade' });
    const script = job.spec.template.spec.containers[0]?.command?.join('\n') ?? '';
    expect(script).toContain('--replication-factor 3');
    expect(topicJobLines(defaults)).toEqual(
      allTopics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitions,
        configs: {
          'min.insync.replicas': '2',
          'cleanup.policy': topic.compacted ? 'compact' : 'delete',
        },
      })),
    );

    const small = ciRendering('small-cluster-values.yaml');
    const smallScript =
      find<Job>(small, 'Job', 'underdog-topics').spec.template.spec.containers[0]?.command?.join(
        '\n',
      ) ?? '';
    expect(smallScript).toContain('--replication-factor 1');
    expect(topicJobLines(small).map((line) => line.configs['min.insync.replicas'])).toEqual(
      allTopics.map(() => '1'),
    );
    expect(() => render('--set', 'kafka.topics.replicationFactor=1')).toThrow(
      /minInsyncReplicas \(2\) exceeds kafka\.topics\.replicationFactor \(1\)/,
    );
    expect(ofKind(parseManifests(render('--set', 'kafka.topics.create=false')), 'Job')).toEqual([]);
  });

  it('routes / to the web app and /graphql, /api and /ws to the gateway, with WebSocket timeouts', () => {
    const ingress = find<Ingress>(ciRendering('production-values.yaml'), 'Ingress', 'underdog');
    expect(ingress.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
    });
    const routes = (i: Ingress) =>
      Object.fromEntries(
        (i.spec.rules[0]?.http.paths ?? []).map((p) => [p.path, p.backend.service.name]),
      );
    expect(ingress.spec.rules.map((r) => r.host)).toEqual(['play.example.com']);
    expect(routes(ingress)).toEqual({
      '/': 'underdog-web',
      '/graphql': 'underdog-gateway',
      '/api': 'underdog-gateway',
      '/ws': 'underdog-gateway',
    });
    // Without the web app (small cluster), everything goes to the gateway, on any host.
    const small = find<Ingress>(ciRendering('small-cluster-values.yaml'), 'Ingress', 'underdog');
    expect(small.spec.rules.map((r) => r.host)).toEqual([undefined]);
    expect(new Set(Object.values(routes(small)))).toEqual(new Set(['underdog-gateway']));
  });

  it('lets each component reach only what it needs through NetworkPolicies, on by default', () => {
    const podsOf = (key: string) => ({
      podSelector: {
        matchLabels: {
          'app.kubernetes.io/name': 'underdog',
          'app.kubernetes.io/instance': 'underdog',
          'app.kubernetes.io/component': facts[key]?.name ?? key,
        },
      },
    });
    /** Who may call a component: whoever lists it in `calls`, and the gateway (helm test). */
    const callersOf = (key: string) => [
      ...new Set([
        'gateway',
        ...Object.entries(facts)
          .filter(([, c]) => (c.calls ?? []).includes(key))
          .map(([caller]) => caller),
      ]),
    ];
    const ports: Record<string, number[]> = {
      kafka: [9092],
      redis: [6379],
      mongo: [27017],
      smtp: [1025, 25, 465, 587],
    };
    for (const [rendering, manifests] of [
      ['defaults', defaults],
      ['production-values.yaml', ciRendering('production-values.yaml')],
    ] as const) {
      const policies = ofKind<NetworkPolicy>(manifests, 'NetworkPolicy').filter(
        (p) => p.metadata.annotations?.['helm.sh/hook'] === undefined,
      );
      expect({ rendering, policies: policies.map((p) => p.metadata.name).sort() }).toEqual({
        rendering,
        policies: Object.values(facts)
          .map(({ name }) => `underdog-${name}`)
          .sort(),
      });
      for (const [key, component] of Object.entries(facts)) {
        const policy = find<NetworkPolicy>(
          manifests,
          'NetworkPolicy',
          `underdog-${component.name}`,
        );
        expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
        expect(policy.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe(
          component.name,
        );
        const [http, metrics, ...more] = policy.spec.ingress;
        expect(more).toEqual([]);
        expect(http?.ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
        const isPublic = component.name === 'gateway' || component.static === true;
        // Into the HTTP port: the ingress controller for public components, else only callers.
        const from = http?.from ?? [];
        const byName = (peer: NetworkPolicyPeer) =>
          peer.podSelector?.matchLabels['app.kubernetes.io/component'] ?? '';
        expect({
          rendering,
          key,
          from: [...from].sort((a, b) => byName(a).localeCompare(byName(b))),
        }).toEqual({
          rendering,
          key,
          from: [
            ...(isPublic
              ? [
                  {
                    namespaceSelector: {
                      matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' },
                    },
                  },
                ]
              : []),
            ...callersOf(key)
              .map(podsOf)
              .sort((a, b) => byName(a).localeCompare(byName(b))),
          ],
        });
        // Into the metrics port: Prometheus's namespace, as before; static files have none.
        expect({ rendering, key, metrics }).toEqual({
          rendering,
          key,
          metrics: component.static
            ? undefined
            : {
                from: [
                  {
                    namespaceSelector: {
                      matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' },
                    },
                  },
                ],
                ports: [{ port: 'metrics', protocol: 'TCP' }],
              },
        });

        const egressPorts = policy.spec.egress
          .filter((rule) => rule.to === undefined || rule.to.some((peer) => peer.ipBlock))
          .flatMap((rule) => rule.ports.map((p) => p.port))
          .filter((port) => port !== 53)
          .sort((a, b) => a - b);
        expect({ component: component.name, egressPorts }).toEqual({
          component: component.name,
          egressPorts: component.uses.flatMap((use) => ports[use] ?? []).sort((a, b) => a - b),
        });
        const called = policy.spec.egress
          .flatMap((rule) => rule.to ?? [])
          .map((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/component'])
          .filter((name) => name !== undefined)
          .sort();
        expect(called).toEqual((component.calls ?? []).map((c) => facts[c]?.name).sort());
      }
      // Static files reach nothing, not even DNS.
      expect(find<NetworkPolicy>(manifests, 'NetworkPolicy', 'underdog-web').spec.egress).toEqual(
        [],
      );
      // `helm test` runs as the gateway and gets out to every component's HTTP port.
      const test = find<NetworkPolicy>(
        manifests,
        'NetworkPolicy',
        'underdog-gateway-test-readiness',
      );
      expect(test.metadata.annotations?.['helm.sh/hook']).toBe('test');
      const reached = test.spec.egress.map((rule) => [
        rule.to?.[0]?.podSelector?.matchLabels['app.kubernetes.io/component'] ?? '',
        rule.ports[0]?.port ?? 0,
      ]);
      const everyComponent = Object.values(facts).map(({ name, port }) => [name, port]);
      const byFirst = (a: (string | number)[], b: (string | number)[]) =>
        String(a[0]).localeCompare(String(b[0]));
      expect(reached.sort(byFirst)).toEqual(everyComponent.sort(byFirst));
    }
    // Off only when asked.
    expect(
      ofKind(parseManifests(render('--set', 'networkPolicy.enabled=false')), 'NetworkPolicy'),
    ).toEqual([]);
  });

  it('gives the gateway and every service the one SERVICE_TOKEN_SECRET, generated and kept or an existing Secret', () => {
    const reference = (secret: string) => ({
      name: 'SERVICE_TOKEN_SECRET',
      valueFrom: { secretKeyRef: { name: secret, key: 'service-token-secret' } },
    });
    const secretEnv = (manifests: Manifest[], name: string) =>
      container(find<Workload>(manifests, 'Deployment', `underdog-${name}`)).env?.filter(
        (variable) => variable.name === 'SERVICE_TOKEN_SECRET',
      );
    for (const [, component] of processes()) {
      expect({ component: component.name, env: secretEnv(defaults, component.name) }).toEqual({
        component: component.name,
        env: [reference('underdog-service-token')],
      });
    }
    const generated = find<Manifest & { data: Record<string, string> }>(
      defaults,
      'Secret',
      'underdog-service-token',
    );
    expect(generated.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
    expect(
      Buffer.from(generated.data['service-token-secret'] ?? '', 'base64').toString().length,
    ).toBeGreaterThanOrEqual(32);

    const production = ciRendering('production-values.yaml');
    for (const [, component] of processes()) {
      expect(secretEnv(production, component.name)).toEqual([reference('underdog-service-token')]);
    }
    expect(ofKind(production, 'Secret')).toEqual([]);
    const elsewhere = parseManifests(
      render(
        '--set',
        'serviceToken.existingSecret=ops-keys',
        '--set',
        'serviceToken.secretKey=rpc',
      ),
    );
    expect(secretEnv(elsewhere, 'auth')).toEqual([
      {
        name: 'SERVICE_TOKEN_SECRET',
        valueFrom: { secretKeyRef: { name: 'ops-keys', key: 'rpc' } },
      },
    ]);
    expect(ofKind(elsewhere, 'Secret').map((m) => m.metadata.name)).not.toContain(
      'underdog-service-token',
    );
  });

  it('ships a valid Grafana dashboard charting the metrics the processes export', () => {
    const dashboard = JSON.parse(
      readFileSync(join(chartDir, 'dashboards', 'underdog.json'), 'utf8'),
    ) as GrafanaDashboard;
    expect(dashboard).toMatchObject({
      uid: 'underdog-live',
      schemaVersion: expect.any(Number) as number,
    });
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect({ panel: panel.title, targets: panel.targets.length > 0 }).toEqual({
        panel: panel.title,
        targets: true,
      });
      for (const target of panel.targets) {
        expect({
          panel: panel.title,
          // Or the alerts firing, and redis_exporter's Sentinel metrics (a failover), issue 38.
          metrics:
            dashboardMetricNames(target.expr).length > 0 ||
            /^(sum by \(alertname\) \(ALERTS\{|max by \(master_name\) \(redis_sentinel_)/.test(
              target.expr,
            ),
        }).toEqual({
          panel: panel.title,
          metrics: true,
        });
      }
    }
    const charted = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((t) => dashboardMetricNames(t.expr))),
    );
    expect([...charted].sort()).toEqual(
      [
        'underdog_consumer_lag_messages',
        'underdog_live_games',
        'underdog_round_duration_seconds',
        'underdog_rounds_awaiting_votes',
        'underdog_vote_ack_seconds',
        'underdog_votes_accepted_total',
        'underdog_votes_apply_lag_messages',
        'underdog_votes_backpressure_refusals_total',
        'underdog_votes_counted_total',
        'underdog_votes_parked_total',
        'underdog_votes_refused_total',
        'underdog_votes_wait_seconds',
        'underdog_websocket_connections',
      ].sort(),
    );
  });

  it('ships the dashboard as a ConfigMap for the Grafana sidecar', () => {
    const dashboard = find<ConfigMap>(
      ciRendering('production-values.yaml'),
      'ConfigMap',
      'underdog-dashboard',
    );
    expect(dashboard.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    expect(JSON.parse(dashboard.data['underdog.json'] ?? '')).toEqual(
      JSON.parse(readFileSync(join(chartDir, 'dashboards', 'underdog.json'), 'utf8')),
    );
    expect(ofKind<ConfigMap>(defaults, 'ConfigMap').map((m) => m.metadata.name)).not.toContain(
      'underdog-dashboard',
    );
  });

  it('scrapes /metrics of every component but the static web app with ServiceMonitors', () => {
    const monitors = ofKind(ciRendering('production-values.yaml'), 'ServiceMonitor');
    // The metrics port, never the public one (issue 24 I4).
    for (const monitor of monitors) {
      expect((monitor as unknown as { spec: { endpoints: unknown[] } }).spec.endpoints).toEqual([
        expect.objectContaining({ port: 'metrics', path: '/metrics' }),
      ]);
    }
    expect(monitors.map((m) => m.metadata.name).sort()).toEqual(
      processes()
        .map(([, { name }]) => `underdog-${name}`)
        .sort(),
    );
  });

  it('rejects misspelt values through values.schema.json', () => {
    expect(() => render('--set', 'gatway.enabled=false')).toThrow(/gatway/);
    expect(() => render('--set', 'auth.replicas=3')).toThrow(/replicas/);
    expect(() => render('--set', 'auth.port=9000')).toThrow(/port/);
  });

  it('leaves out a disabled component entirely', () => {
    const manifests = parseManifests(
      render('--set', 'ads.enabled=false', '--set', 'networkPolicy.enabled=true'),
    );
    expect(
      manifests.filter((m) => m.metadata.labels?.['app.kubernetes.io/component'] === 'ads'),
    ).toEqual([]);
  });

  it('documents every value in values.yaml with a "# --" comment', () => {
    // Every key holding a value (a scalar, {}, [] or a list) needs a "# --" line in the comment
    // block right above it; keys that only group nested keys may go without. Entries of lists are
    // example data, not values of their own.
    const lines = readFileSync(join(chartDir, 'values.yaml'), 'utf8').split('\n');
    const isContent = (line: string) => line.trim() !== '' && !line.trimStart().startsWith('#');
    const undocumented: string[] = [];
    let listIndent = -1;
    lines.forEach((line, index) => {
      if (!isContent(line)) return;
      const indent = line.search(/\S/);
      if (listIndent >= 0 && indent > listIndent) return;
      listIndent = -1;
      if (line.trimStart().startsWith('- ')) {
        listIndent = indent;
        return;
      }
      const match = /^\s*([^\s:#]+):\s*(.*)$/.exec(line);
      if (!match) return;
      const [, key, inlineValue] = match;
      const next = lines.slice(index + 1).find(isContent) ?? '';
      const groupsKeys = inlineValue === '' && !next.trimStart().startsWith('- ');
      if (groupsKeys) return;
      let above = index - 1;
      let documented = false;
      while (above >= 0 && lines[above]?.trimStart().startsWith('#')) {
        if (lines[above]?.trimStart().startsWith('# -- ')) documented = true;
        above--;
      }
      if (!documented) undocumented.push(`values.yaml:${index + 1} ${key}`);
    });
    expect(undocumented).toEqual([]);
  });
});

describe('k8s/ development infrastructure', () => {
  const files = ['namespace', 'kafka', 'redis', 'mongo', 'mailpit'].map((name) =>
    join(repoRoot, 'k8s', `${name}.yaml`),
  );

  it('validates against the Kubernetes 1.31 schemas offline', () => {
    validate(...files);
  });

  it('serves Kafka, Redis, MongoDB and SMTP where the chart defaults expect them', () => {
    const manifests = helm.parseYaml<Manifest>(
      files.map((file) => readFileSync(file, 'utf8')).join('\n---\n'),
    );
    const services = ofKind<Service>(manifests, 'Service');
    const port = (name: string, portName: string) =>
      find<Service>(services, 'Service', name).spec.ports.find((p) => p.name === portName)?.port;
    expect(port('kafka', 'kafka')).toBe(9092);
    expect(port('redis', 'redis')).toBe(6379);
    expect(port('mongo', 'mongo')).toBe(27017);
    expect(port('mailpit', 'smtp')).toBe(1025);
    for (const manifest of manifests.filter((m) => m.kind !== 'Namespace')) {
      expect(manifest.metadata.namespace).toBe('underdog');
    }
    expect(container(find<Workload>(manifests, 'StatefulSet', 'kafka')).image).toBe(
      'apache/kafka:3.9.1',
    );
  });
});
