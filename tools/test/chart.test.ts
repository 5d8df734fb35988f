// The Helm chart and the dev infrastructure manifests, checked offline: helm lint, helm template
// with the values SREs actually use, and validation of every rendered object against the
// Kubernetes 1.31 OpenAPI schemas embedded in kubectl-validate (no cluster, no schema download).
// helm and kubectl-validate are built from source by tools/helm/ensure-*.sh on first use (a few
// minutes, then cached). If they cannot be installed, every test here fails: none is skipped.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repoRoot = join(__dirname, '..', '..');
const chartDir = join(repoRoot, 'charts', 'underdog');
const kubeVersion = '1.31.0';
// kubectl-validate names its embedded schema sets by minor version; "1.31.0" would send it to GitHub.
const schemaVersion = '1.31';

const components = [
  { key: 'gateway', name: 'gateway', port: 8080 },
  { key: 'auth', name: 'auth', port: 8081 },
  { key: 'tournament', name: 'tournament', port: 8082 },
  { key: 'gameEngine', name: 'game-engine', port: 8083 },
  { key: 'ads', name: 'ads', port: 8084 },
  { key: 'notification', name: 'notification', port: 8085 },
] as const;

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
    rules: { http: { paths: { path: string; backend: { service: { name: string } } }[] } }[];
  };
}

let helm: string;
let kubectlValidate: string;
let crdDir: string;
let workDir: string;

/** Runs a tools/helm/ensure-*.sh script; it prints the tool's path (stderr shows build progress). */
function ensureTool(script: string): string {
  const started = Date.now();
  const path = execFileSync('bash', [join(repoRoot, 'tools', 'helm', script)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 30 * 60_000,
  }).trim();
  if (!existsSync(path)) throw new Error(`${script} printed ${path}, which does not exist`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`chart.test: ${script} -> ${path} (${seconds} s)\n`);
  return path;
}

/** Environment for helm: its config, cache and data under the test's temporary directory. */
function helmEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    HELM_CONFIG_HOME: join(workDir, 'helm', 'config'),
    HELM_CACHE_HOME: join(workDir, 'helm', 'cache'),
    HELM_DATA_HOME: join(workDir, 'helm', 'data'),
  };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = helmEnv()): string {
  return execFileSync(command, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    env,
    stdio: 'pipe',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** `helm template` of the chart as release "underdog" in namespace "underdog". */
function render(...args: string[]): string {
  return run(helm, [
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

let conversions = 0;

/**
 * Parses a multi-document YAML stream with helm itself (its fromYaml and toJson functions), so the
 * test needs no YAML library: the stream becomes a file of a throwaway chart whose only template
 * prints the documents as one JSON array.
 */
function parseManifests(yaml: string): Manifest[] {
  const converter = join(workDir, `yaml-to-json-${conversions++}`);
  mkdirSync(join(converter, 'templates'), { recursive: true });
  writeFileSync(
    join(converter, 'Chart.yaml'),
    'apiVersion: v2\nname: yaml-to-json\nversion: 0.0.0\n',
  );
  writeFileSync(join(converter, 'documents.yaml'), yaml);
  writeFileSync(
    join(converter, 'templates', 'documents.yaml'),
    [
      '{{- $documents := list }}',
      '{{- range regexSplit "(?m)^---\\\\s*$" (.Files.Get "documents.yaml") -1 }}',
      '{{- $document := fromYaml . }}',
      '{{- if hasKey $document "Error" }}{{ fail $document.Error }}{{ end }}',
      '{{- if $document }}{{ $documents = append $documents $document }}{{ end }}',
      '{{- end }}',
      'items: {{ toJson $documents }}',
      '',
    ].join('\n'),
  );
  const output = run(helm, ['template', converter]);
  const line = output.split('\n').find((text) => text.startsWith('items: '));
  if (!line) throw new Error(`yaml-to-json produced no items:\n${output}`);
  return JSON.parse(line.slice('items: '.length)) as Manifest[];
}

/** Validates manifests offline; any attempt to reach the network fails through a dead proxy. */
function validate(...paths: string[]): void {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KUBECONFIG: join(workDir, 'no-kubeconfig'),
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
  const path = join(workDir, `${name}.yaml`);
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

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'underdog-chart-'));
  helm = ensureTool('ensure-helm.sh');
  kubectlValidate = ensureTool('ensure-kubectl-validate.sh');
  crdDir = ensureTool('ensure-crds.sh');
}, 60 * 60_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('charts/underdog', () => {
  let defaults: Manifest[];
  let defaultsYaml: string;

  beforeAll(() => {
    defaultsYaml = render();
    defaults = parseManifests(defaultsYaml);
  });

  it('passes helm lint --strict', () => {
    const output = run(helm, ['lint', chartDir, '--strict', '--kube-version', kubeVersion]);
    expect(output).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('renders a Deployment, Service and ConfigMap for each of the six components', () => {
    for (const { name, port } of components) {
      const deployment = find<Workload>(defaults, 'Deployment', `underdog-${name}`);
      const service = find<Service>(defaults, 'Service', `underdog-${name}`);
      find<ConfigMap>(defaults, 'ConfigMap', `underdog-${name}`);

      expect(container(deployment).ports).toEqual([
        expect.objectContaining({ name: 'http', containerPort: port }),
      ]);
      expect(service.spec.ports).toEqual([expect.objectContaining({ name: 'http', port })]);
      expect(deployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    }
    expect(ofKind(defaults, 'Deployment')).toHaveLength(components.length);
  });

  it('runs every pod as non-root on a read-only root filesystem with no capabilities', () => {
    for (const deployment of ofKind<Workload>(defaults, 'Deployment')) {
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        expect(c.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      }
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'tmp' }));
    }
  });

  it('probes /healthz for startup and liveness and /readyz for readiness', () => {
    for (const deployment of ofKind<Workload>(defaults, 'Deployment')) {
      const c = container(deployment);
      expect(c.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
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
    for (const checksum of Object.values(before)) expect(checksum).toMatch(/^[0-9a-f]{64}$/);

    const after = checksums(parseManifests(render('--set', 'auth.env.FEATURE_FLAG=on')));
    expect(after['underdog-auth']).not.toBe(before['underdog-auth']);
    for (const { name } of components.filter((c) => c.key !== 'auth')) {
      expect(after[`underdog-${name}`]).toBe(before[`underdog-${name}`]);
    }
  });

  it('gives each component the environment its code reads', () => {
    const config = (name: string) =>
      find<ConfigMap>(defaults, 'ConfigMap', `underdog-${name}`).data;
    for (const { name, port } of components) {
      expect(config(name)).toMatchObject({
        PORT: String(port),
        HOST: '0.0.0.0',
        LOG_LEVEL: 'info',
        NODE_ENV: 'production',
        KAFKA_BROKERS: 'kafka:9092',
      });
      const env = container(find<Workload>(defaults, 'Deployment', `underdog-${name}`)).env;
      expect(env).toContainEqual({
        name: 'INSTANCE_ID',
        valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
      });
    }
    expect(config('gateway')).toMatchObject({
      REDIS_URL: 'redis://redis:6379',
      AUTH_URL: 'http://underdog-auth:8081',
      TOURNAMENT_URL: 'http://underdog-tournament:8082',
      GAME_ENGINE_URL: 'http://underdog-game-engine:8083',
      ADS_URL: 'http://underdog-ads:8084',
    });
    expect(config('auth')).toMatchObject({
      MONGO_URL: 'mongodb://mongo:27017',
      MONGO_DB: 'underdog-auth',
      REDIS_URL: 'redis://redis:6379',
      ADMIN_EMAIL: 'admin@underdog.local',
    });
    expect(config('tournament')).toMatchObject({ MONGO_DB: 'underdog-tournament' });
    expect(config('tournament')).not.toHaveProperty('REDIS_URL');
    expect(config('game-engine')).toMatchObject({ REDIS_URL: 'redis://redis:6379' });
    expect(config('game-engine')).not.toHaveProperty('MONGO_URL');
    expect(config('ads')).toMatchObject({ MONGO_DB: 'underdog-ads' });
    expect(config('notification')).toMatchObject({
      SMTP_URL: 'smtp://mailpit:1025',
      MAIL_FROM: 'Underdog <no-reply@underdog.local>',
    });

    const authEnv = container(find<Workload>(defaults, 'Deployment', 'underdog-auth')).env;
    expect(authEnv).toContainEqual({
      name: 'ADMIN_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'underdog-admin', key: 'admin-password' } },
    });
    find(defaults, 'Secret', 'underdog-admin');
  });

  it('takes URLs that carry credentials from existing Secrets instead of the ConfigMaps', () => {
    const manifests = parseManifests(
      render(
        '--set',
        'redis.existingSecret=redis-credentials',
        '--set',
        'mongo.existingSecret=mongo-credentials',
        '--set',
        'smtp.existingSecret=smtp-credentials',
        '--set',
        'auth.admin.existingSecret=admin-credentials',
      ),
    );
    const auth = find<Workload>(manifests, 'Deployment', 'underdog-auth');
    expect(container(auth).env).toEqual(
      expect.arrayContaining([
        {
          name: 'REDIS_URL',
          valueFrom: { secretKeyRef: { name: 'redis-credentials', key: 'redis-url' } },
        },
        {
          name: 'MONGO_URL',
          valueFrom: { secretKeyRef: { name: 'mongo-credentials', key: 'mongo-url' } },
        },
        {
          name: 'ADMIN_PASSWORD',
          valueFrom: { secretKeyRef: { name: 'admin-credentials', key: 'admin-password' } },
        },
      ]),
    );
    const notification = find<Workload>(manifests, 'Deployment', 'underdog-notification');
    expect(container(notification).env).toContainEqual({
      name: 'SMTP_URL',
      valueFrom: { secretKeyRef: { name: 'smtp-credentials', key: 'smtp-url' } },
    });
    for (const configMap of ofKind<ConfigMap>(manifests, 'ConfigMap')) {
      expect(Object.keys(configMap.data)).not.toEqual(
        expect.arrayContaining([expect.stringMatching(/^(REDIS|MONGO|SMTP)_URL$/)]),
      );
    }
    expect(ofKind(manifests, 'Secret')).toEqual([]);
  });

  it('validates the default rendering against the Kubernetes 1.31 schemas offline', () => {
    validate(writeRendering('defaults', defaultsYaml));
  });

  it('validates the rendering with autoscaling, the ingress and ServiceMonitors enabled', () => {
    const yaml = render(
      '--set',
      'gateway.autoscaling.enabled=true',
      '--set',
      'gameEngine.autoscaling.enabled=true',
      '--set',
      'ingress.enabled=true',
      '--set',
      'serviceMonitor.enabled=true',
    );
    validate(writeRendering('everything-enabled', yaml));

    const manifests = parseManifests(yaml);
    const hpas = ofKind<HorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual([
      'underdog-game-engine',
      'underdog-gateway',
    ]);
    const engine = find<HorizontalPodAutoscaler>(
      manifests,
      'HorizontalPodAutoscaler',
      'underdog-game-engine',
    );
    expect(engine.spec.maxReplicas).toBeLessThanOrEqual(12);
    // The HPA owns the replica count; a replicas field would fight it on every upgrade.
    for (const name of ['underdog-gateway', 'underdog-game-engine']) {
      expect(find<Workload>(manifests, 'Deployment', name).spec.replicas).toBeUndefined();
    }

    const ingress = find<Ingress>(manifests, 'Ingress', 'underdog-gateway');
    expect(ingress.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
      'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600',
    });
    expect(ingress.spec.rules[0]?.http.paths[0]?.backend.service.name).toBe('underdog-gateway');
    expect(ofKind(manifests, 'ServiceMonitor')).toHaveLength(components.length);
  });

  it('refuses more than 12 game-engine replicas, one per tournament partition', () => {
    expect(() => render('--set', 'gameEngine.replicaCount=13')).toThrow(/maximum: got 13, want 12/);
    expect(() =>
      render(
        '--set',
        'gameEngine.autoscaling.enabled=true',
        '--set',
        'gameEngine.autoscaling.maxReplicas=13',
      ),
    ).toThrow(/maximum: got 13, want 12/);
    // The template guard holds even when schema validation is skipped.
    expect(() =>
      render(
        '--skip-schema-validation',
        '--set',
        'gameEngine.autoscaling.enabled=true',
        '--set',
        'gameEngine.autoscaling.maxReplicas=13',
      ),
    ).toThrow(/at most 12 replicas of game-engine/);
  });

  it('rejects misspelt values through values.schema.json', () => {
    expect(() => render('--set', 'gatway.enabled=false')).toThrow(/gatway/);
    expect(() => render('--set', 'auth.replicas=3')).toThrow(/replicas/);
  });

  it('leaves out a disabled component entirely', () => {
    const manifests = parseManifests(render('--set', 'ads.enabled=false'));
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
    const manifests = parseManifests(
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
