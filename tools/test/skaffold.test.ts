// skaffold.yaml, checked without the skaffold binary (building it takes many minutes on a small CI
// machine): validated against skaffold's published JSON schema for its apiVersion (from skaffold's
// Go module, tools/helm/ensure-skaffold-schema.sh), through helm's JSON-schema validation of chart
// values; then its artifacts are compared with the chart's components.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartDir, ensureTool, Helm, repoRoot, type ComponentFacts } from './helm-support';

interface Artifact {
  image: string;
  context: string;
  docker: { dockerfile: string; target?: string; buildArgs?: Record<string, string> };
}

interface SkaffoldConfig {
  apiVersion: string;
  build: { artifacts: Artifact[] };
  deploy: {
    helm: { releases: { chartPath: string; setValueTemplates: Record<string, string> }[] };
  };
}

let helm: Helm;
let schema: string;
let skaffoldYaml: string;
let config: SkaffoldConfig;
let facts: Record<string, ComponentFacts>;
let values: Record<string, { image?: { repository?: string } }>;

beforeAll(() => {
  helm = new Helm();
  schema = readFileSync(ensureTool('ensure-skaffold-schema.sh'), 'utf8');
  skaffoldYaml = readFileSync(join(repoRoot, 'skaffold.yaml'), 'utf8');
  config = helm.parseDocument<SkaffoldConfig>(skaffoldYaml);
  facts = helm.parseDocument<{ components: Record<string, ComponentFacts> }>(
    readFileSync(join(chartDir, 'components.yaml'), 'utf8'),
  ).components;
  values = helm.parseDocument(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
}, 30 * 60_000);

afterAll(() => helm?.dispose());

describe('skaffold.yaml', () => {
  it('is valid against the published skaffold schema of its apiVersion', () => {
    expect(config.apiVersion).toBe('skaffold/v4beta11');
    expect(() => helm.parseYaml(skaffoldYaml, schema)).not.toThrow();
  });

  it('would be rejected by that schema with a misspelt key', () => {
    const broken = skaffoldYaml.replace('tagPolicy:', 'tagPolcy:');
    expect(broken).not.toBe(skaffoldYaml);
    expect(() => helm.parseYaml(broken, schema)).toThrow(/tagPolcy/);
  });

  it('builds every component image from the one Dockerfile', () => {
    const expected = Object.entries(facts)
      .map(([key, component]) => ({
        image: values[key]?.image?.repository,
        context: '.',
        docker: component.static
          ? { dockerfile: 'Dockerfile', target: 'web' }
          : {
              dockerfile: 'Dockerfile',
              target: 'service',
              buildArgs: { COMPONENT: component.name },
            },
      }))
      .sort((a, b) => String(a.image).localeCompare(String(b.image)));
    const artifacts = [...config.build.artifacts].sort((a, b) => a.image.localeCompare(b.image));
    expect(artifacts).toEqual(expected);

    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM .* AS service$/m);
    expect(dockerfile).toMatch(/^FROM .* AS web$/m);
    expect(dockerfile).toMatch(/^ARG COMPONENT$/m);
    // Every file the Dockerfile copies from the build context exists and is not .dockerignored.
    const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap(([, sources]) =>
      (sources ?? '').split(/\s+/).filter((source) => source !== '.'),
    );
    expect(copied).toContain('tools/docker/nginx.conf');
    for (const source of copied) {
      expect({ source, exists: existsSync(join(repoRoot, source)) }).toEqual({
        source,
        exists: true,
      });
      expect(ignored).not.toMatch(new RegExp(`^${source.split('/')[0] ?? ''}/?$`, 'm'));
    }
    const dockerfiles = execFileSync(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard'],
      {
        cwd: repoRoot,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((path) => /(^|\/)Dockerfile[^/]*$/.test(path) && !path.includes('node_modules/'));
    expect(dockerfiles).toEqual(['Dockerfile']);
  });

  it('installs the chart with the image skaffold built for each component', () => {
    const [release] = config.deploy.helm.releases;
    expect(release?.chartPath).toBe('charts/underdog');
    const expected: Record<string, string> = {};
    for (const key of Object.keys(facts)) {
      const variable = (values[key]?.image?.repository ?? '').replace(/[/-]/g, '_');
      expected[`${key}.image.repository`] = `{{.IMAGE_REPO_${variable}}}`;
      expected[`${key}.image.tag`] = `{{.IMAGE_TAG_${variable}}}`;
    }
    expect(release?.setValueTemplates).toEqual(expected);
  });
});
