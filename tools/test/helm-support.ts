// Shared by the chart, skaffold and component-facts tests: the pinned helm (built from source by
// tools/helm/ensure-helm.sh on first use), YAML parsing through helm itself (no YAML library in
// the test dependencies), and the chart's facts files.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const repoRoot = join(__dirname, '..', '..');
export const chartDir = join(repoRoot, 'charts', 'underdog');

/** Runs a tools/helm/ensure-*.sh script; it prints a path (stderr shows build progress). */
export function ensureTool(script: string): string {
  const started = Date.now();
  const path = execFileSync('bash', [join(repoRoot, 'tools', 'helm', script)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 30 * 60_000,
  }).trim();
  if (!existsSync(path)) throw new Error(`${script} printed ${path}, which does not exist`);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`${script} -> ${path} (${seconds} s)\n`);
  return path;
}

/** A helm with its config, cache and data in a temporary directory; `dispose` removes it. */
export class Helm {
  readonly binary: string;
  readonly workDir: string;
  private conversions = 0;

  constructor() {
    this.workDir = mkdtempSync(join(tmpdir(), 'underdog-helm-'));
    this.binary = ensureTool('ensure-helm.sh');
  }

  env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      HELM_CONFIG_HOME: join(this.workDir, 'helm', 'config'),
      HELM_CACHE_HOME: join(this.workDir, 'helm', 'cache'),
      HELM_DATA_HOME: join(this.workDir, 'helm', 'data'),
    };
  }

  run(args: string[]): string {
    return run(this.binary, args, this.env());
  }

  /**
   * Parses a multi-document YAML stream with helm's fromYaml and toJson: the stream becomes a file
   * of a throwaway chart whose only template prints the documents as one JSON array. With a
   * `schema`, helm also validates the first document against that JSON schema (as chart values).
   */
  parseYaml<T = unknown>(yaml: string, schema?: string): T[] {
    const chart = join(this.workDir, `yaml-to-json-${this.conversions++}`);
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(
      join(chart, 'Chart.yaml'),
      'apiVersion: v2\nname: yaml-to-json\nversion: 0.0.0\n',
    );
    writeFileSync(join(chart, 'documents.yaml'), yaml);
    writeFileSync(
      join(chart, 'templates', 'documents.yaml'),
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
    const args = ['template', chart];
    if (schema !== undefined) {
      writeFileSync(join(chart, 'values.schema.json'), schema);
      writeFileSync(join(chart, 'values.yaml'), '{}\n');
      const values = join(chart, 'checked-values.yaml');
      writeFileSync(values, yaml);
      args.push('--values', values);
    }
    const output = this.run(args);
    const line = output.split('\n').find((text) => text.startsWith('items: '));
    if (!line) throw new Error(`yaml-to-json produced no items:\n${output}`);
    return JSON.parse(line.slice('items: '.length)) as T[];
  }

  /** One YAML document. */
  parseDocument<T>(yaml: string): T {
    const [document] = this.parseYaml<T>(yaml);
    if (document === undefined) throw new Error('the YAML holds no document');
    return document;
  }

  dispose(): void {
    rmSync(this.workDir, { recursive: true, force: true });
  }
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv): string {
  return execFileSync(command, args, {
    cwd: repoRoot,
    encoding: 'utf8',
    env,
    stdio: 'pipe',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** A component as charts/underdog/components.yaml describes it. */
export interface ComponentFacts {
  name: string;
  port: number;
  uses: ('kafka' | 'redis' | 'mongo' | 'smtp')[];
  calls?: string[];
  consumes?: string[];
  static?: boolean;
}

export interface TopicFacts {
  name: string;
  partitions: number;
  compacted?: boolean;
}

/**
 * The metric names a dashboard expression reads: `underdog_*` identifiers, with the `_bucket`,
 * `_sum` and `_count` series of a histogram named by the histogram.
 */
export function dashboardMetricNames(expr: string): string[] {
  return [
    ...new Set(
      [...expr.matchAll(/\b(underdog_[a-z0-9_]+)/g)].map(([, name]) =>
        (name ?? '').replace(/_(bucket|sum|count)$/, ''),
      ),
    ),
  ];
}
