// Each component's facts are written once, in charts/underdog/components.yaml; this test holds the
// rest of the repository to them: the port and infrastructure needs of each service's
// ServiceDefinition, the environment tables of the service READMEs, the code's own config parsing
// (fed the environment the chart renders), and the web image's nginx port.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processConfig, type InfrastructureNeed, type ServiceDefinition } from '@underdog/platform';
import { adsService } from '../../services/ads/src';
import { authService } from '../../services/auth/src';
import { gameEngineService } from '../../services/game-engine/src';
import { notificationService } from '../../services/notification/src';
import { tournamentService } from '../../services/tournament/src';
import { gatewayConfig } from '../../gateway/src/config';
import { chartDir, Helm, repoRoot, type ComponentFacts } from './helm-support';

const definitions: Record<string, ServiceDefinition<unknown>> = {
  auth: authService as ServiceDefinition<unknown>,
  tournament: tournamentService as ServiceDefinition<unknown>,
  gameEngine: gameEngineService as ServiceDefinition<unknown>,
  ads: adsService as ServiceDefinition<unknown>,
  notification: notificationService as ServiceDefinition<unknown>,
};

/** How a ServiceDefinition's needs are named in components.yaml. */
const infrastructureOf: Record<InfrastructureNeed, string> = {
  bus: 'kafka',
  store: 'redis',
  documents: 'mongo',
};

/** Stand-ins for the values the chart takes from Secrets. */
const secretValues: Record<string, string> = {
  REDIS_URL: 'redis://:password@redis.example:6379',
  MONGO_URL: 'mongodb://user:password@mongo.example:27017',
  SMTP_URL: 'smtp://user:password@smtp.example:587',
  ADMIN_PASSWORD: 'Admin-password-1',
  FAIR_PLAY_SECRET: 'fair-play-secret-of-at-least-32-characters',
  SERVICE_TOKEN_SECRET: 'service-token-secret-of-at-least-32-characters',
};

interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
}

let helm: Helm;
let facts: Record<string, ComponentFacts>;
let rendered: Manifest[];

beforeAll(() => {
  helm = new Helm();
  facts = helm.parseDocument<{ components: Record<string, ComponentFacts> }>(
    readFileSync(join(chartDir, 'components.yaml'), 'utf8'),
  ).components;
  rendered = helm.parseYaml<Manifest>(
    helm.run([
      'template',
      'underdog',
      chartDir,
      '--namespace',
      'underdog',
      '--kube-version',
      '1.31.0',
    ]),
  );
}, 30 * 60_000);

afterAll(() => helm?.dispose());

/** The environment the chart gives a component: its ConfigMap plus the variables from Secrets. */
function chartEnvironment(name: string): Record<string, string> {
  const configMap = rendered.find(
    (m) => m.kind === 'ConfigMap' && m.metadata.name === `underdog-${name}`,
  );
  const deployment = rendered.find(
    (m) => m.kind === 'Deployment' && m.metadata.name === `underdog-${name}`,
  );
  if (!configMap?.data || !deployment?.spec) throw new Error(`underdog-${name} was not rendered`);
  const env: Record<string, string> = { ...configMap.data };
  for (const variable of deployment.spec.template.spec.containers[0]?.env ?? []) {
    if (variable.name === 'INSTANCE_ID') env.INSTANCE_ID = `underdog-${name}-abc12`;
    else env[variable.name] = variable.value ?? secretValues[variable.name] ?? '';
  }
  return env;
}

/** The `| \`NAME\` | default | meaning |` rows of a README's environment table. */
function readmeVariables(path: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const match of readFileSync(join(repoRoot, path), 'utf8').matchAll(
    /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*([^|]*?)\s*\|/gm,
  )) {
    const [, name, fallback] = match;
    if (name) rows.set(name, fallback ?? '');
  }
  return rows;
}

function readmeOf(key: string, component: ComponentFacts): string {
  return key === 'gateway' ? 'gateway/README.md' : `services/${component.name}/README.md`;
}

describe('components.yaml', () => {
  it('matches the port and infrastructure needs of each service definition', () => {
    for (const [key, definition] of Object.entries(definitions)) {
      const component = facts[key];
      expect({ key, name: component?.name, port: component?.port }).toEqual({
        key,
        name: definition.name,
        port: definition.defaultPort,
      });
      const fromCode = definition.needs.map((need) => infrastructureOf[need]).sort();
      const fromFacts = (component?.uses ?? []).filter((use) => use !== 'smtp').sort();
      expect({ key, uses: fromFacts }).toEqual({ key, uses: fromCode });
    }
    expect(Object.keys(facts).sort()).toEqual(
      [...Object.keys(definitions), 'gateway', 'web'].sort(),
    );
  });

  it('agrees with the environment table of every service README', () => {
    for (const [key, component] of Object.entries(facts).filter(([, c]) => !c.static)) {
      const readme = readmeOf(key, component);
      const documented = readmeVariables(readme);
      expect({ readme, PORT: documented.get('PORT') }).toEqual({
        readme,
        PORT: String(component.port),
      });

      const given = Object.keys(chartEnvironment(component.name)).filter(
        (name) => name !== 'INSTANCE_ID',
      );
      const undocumented = given.filter((name) => !documented.has(name));
      expect({ readme, undocumented }).toEqual({ readme, undocumented: [] });

      const required = [...documented]
        .filter(([, fallback]) => /required/.test(fallback))
        .map(([name]) => name);
      const missing = required.filter((name) => !given.includes(name));
      expect({ readme, missing }).toEqual({ readme, missing: [] });
      expect({ readme, smtp: documented.has('SMTP_URL') }).toEqual({
        readme,
        smtp: component.uses.includes('smtp'),
      });
    }
  });

  it('renders an environment every service and the gateway accept as their configuration', () => {
    for (const [key, definition] of Object.entries(definitions)) {
      const env = chartEnvironment(facts[key]?.name ?? key);
      expect(() => definition.config(env)).not.toThrow();
      // The variables every process reads, SERVICE_TOKEN_SECRET (required) among them.
      expect(() => processConfig(definition.name, definition.defaultPort, env)).not.toThrow();
    }
    expect(() =>
      processConfig('gateway', facts.gateway?.port ?? 0, chartEnvironment('gateway')),
    ).not.toThrow();
    const gateway = gatewayConfig(chartEnvironment('gateway'));
    expect(gateway.PORT).toBe(facts.gateway?.port);
    expect(gateway.NODE_ENV).toBe('production');
  });

  it('gives the web image the port nginx listens on', () => {
    const nginx = readFileSync(join(repoRoot, 'tools', 'docker', 'nginx.conf'), 'utf8');
    expect(nginx).toMatch(new RegExp(`^\\s*listen ${facts.web?.port ?? 'none'};$`, 'm'));
    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${facts.web?.port ?? 'none'}$`, 'm'));
  });
});
