/**
 * deploy/kubernetes/, offline: every object validates against the Kubernetes schema of its kind (kubernetes-models'
 * compiled OpenAPI schemas), with no field the schema does not know (the API server's strict field validation would
 * refuse or drop one: a misspelt `readOnlyRootFilesytem` is otherwise silently no protection), and holds what the
 * server needs: the probes on the ops listener, non-root and read-only, the secrets as files, only variables the
 * server reads, a grace period longer than its drain, no public ops port.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { validate as validateDeployment } from 'kubernetes-models/_schemas/IoK8sApiAppsV1Deployment';
import { validate as validateSecret } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret';
import { validate as validateService } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Service';
import { validate as validatePodDisruptionBudget } from 'kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ConfigError } from '../../src/config/config-error.js';
import { configurationWarnings } from '../../src/config/env.js';
import { KNOWN_VARIABLES } from '../../src/config/known-variables.js';
import { readSecrets } from '../../src/config/secrets.js';
import { projectRoot } from '../../src/contract/project.js';
import { schemaViolations } from './kubernetes-schema.js';

const FOLDER = resolve(projectRoot, 'deploy/kubernetes');

/** Each kind the folder may hold, and its schema's validator. */
const SCHEMAS: Record<string, (data: unknown) => boolean> = {
  'apps/v1 Deployment': validateDeployment,
  'v1 Service': validateService,
  'policy/v1 PodDisruptionBudget': validatePodDisruptionBudget,
  'v1 Secret': validateSecret,
};

interface Manifest {
  file: string;
  object: { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } } & Record<string, unknown>;
}

const files = readdirSync(FOLDER).filter((file) => file.endsWith('.yaml'));
const kustomization = 'kustomization.yaml';
const manifests: Manifest[] = files
  .filter((file) => file !== kustomization)
  .flatMap((file) =>
    parseAllDocuments(readFileSync(join(FOLDER, file), 'utf8')).map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map(String).join('; ')}`);
      return { file, object: document.toJS() as Manifest['object'] };
    }),
  );
const one = <T>(kind: string): T => {
  const found = manifests.filter((manifest) => manifest.object.kind === kind);
  if (found.length !== 1) throw new Error(`deploy/kubernetes/ holds ${found.length} ${kind} objects, not one`);
  return found[0]?.object as T;
};

const deployment = one<IDeployment>('Deployment');
const pod = deployment.spec?.template.spec;
const container = pod?.containers.find((candidate) => candidate.name === 'server');
const env = new Map((container?.env ?? []).map((variable) => [variable.name, variable.value]));
const service = one<IService>('Service');
const secret = one<ISecret>('Secret');
const opsPort = container?.ports?.find((port) => port.name === 'ops');

describe('deploy/kubernetes/', () => {
  it('lists every file in its kustomization, and holds only kinds with a schema here', () => {
    const listed = (parse(readFileSync(join(FOLDER, kustomization), 'utf8')) as { resources: string[] }).resources;
    expect([...listed].sort()).toEqual(files.filter((file) => file !== kustomization).sort());
    for (const { file, object } of manifests) expect(Object.keys(SCHEMAS), file).toContain(`${String(object.apiVersion)} ${String(object.kind)}`);
    expect(manifests.map((manifest) => manifest.object.kind).sort()).toEqual(['Deployment', 'PodDisruptionBudget', 'Secret', 'Service']);
  });

  it('validates each object against its schema, with no field the schema does not know', () => {
    for (const { file, object } of manifests) {
      const validate = SCHEMAS[`${String(object.apiVersion)} ${String(object.kind)}`];
      if (!validate) throw new Error(`${file}: no schema for ${String(object.kind)}`);
      expect(schemaViolations(validate, object), `${file} (${String(object.kind)} ${String(object.metadata?.name)})`).toEqual([]);
    }
  });

  it('finds a misspelt field and a wrong type (the check can fail)', () => {
    const misspelt = structuredClone(deployment) as unknown as Record<string, unknown>;
    const spec = (misspelt['spec'] as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec;
    spec.containers[0] = { ...spec.containers[0], readinesProbe: {}, ports: [{ containerPort: 'ops' }] };
    expect(schemaViolations(validateDeployment, misspelt)).toEqual([
      '/spec/template/spec/containers/0/ports/0/containerPort must be integer',
      '/spec/template/spec/containers/0/readinesProbe is not a field of this object',
    ]);
  });

  it('probes /livez and /readyz on the ops listener, OPS_PORT', () => {
    expect(opsPort?.containerPort).toBe(Number(env.get('OPS_PORT')));
    expect(env.get('OPS_HOST')).toBe('0.0.0.0');
    const probes = { livenessProbe: '/livez', readinessProbe: '/readyz', startupProbe: '/livez' } as const;
    for (const [probe, path] of Object.entries(probes)) {
      const get = container?.[probe as keyof typeof probes]?.httpGet;
      expect(get?.path, probe).toBe(path);
      expect([opsPort?.name, opsPort?.containerPort], probe).toContain(get?.port);
    }
  });

  it('runs non-root, read-only, without privileges or capabilities, under RuntimeDefault seccomp', () => {
    expect(pod?.securityContext?.runAsNonRoot).toBe(true);
    expect(pod?.securityContext?.runAsUser).toBeGreaterThan(0);
    expect(pod?.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
    expect(container?.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(container?.securityContext?.capabilities?.add ?? []).toEqual([]);
    expect(container?.securityContext?.privileged ?? false).toBe(false);
    expect(container?.securityContext?.runAsUser ?? 1).not.toBe(0);
    expect(pod?.automountServiceAccountToken).toBe(false);
    // Service links would set `<SERVICE>_PORT=tcp://…`: a Service named `web` sets WEB_PORT.
    expect(pod?.enableServiceLinks).toBe(false);
    // Writable volumes only where the server writes: on PostgreSQL, nowhere.
    expect(pod?.volumes?.filter((volume) => volume.emptyDir !== undefined || volume.hostPath !== undefined) ?? []).toEqual([]);
  });

  it('sets requests and limits, and a grace period longer than the drain and the grace for requests in flight', () => {
    expect(Object.keys(container?.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(container?.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
    const drainSeconds = Number(env.get('SHUTDOWN_DELAY_SECONDS')) + Number(env.get('SHUTDOWN_GRACE_MS')) / 1000;
    expect(drainSeconds).toBeGreaterThan(0);
    expect(pod?.terminationGracePeriodSeconds).toBeGreaterThan(drainSeconds);
    // No preStop hook: its sleep would add to the drain, and the image has no `sleep` to run.
    expect(container?.lifecycle?.preStop).toBeUndefined();
  });

  it("runs the image's own command, which carries the server's V8 flag", () => {
    expect(container?.command).toBeUndefined();
    expect(container?.args).toBeUndefined();
    expect(env.has('NODE_OPTIONS')).toBe(false);
  });

  it('sets only variables the server reads, PostgreSQL under production, and takes no secret from the environment', () => {
    const known = new Set<string>(KNOWN_VARIABLES);
    expect([...env.keys()].filter((name) => !known.has(name))).toEqual([]);
    expect(env.get('NODE_ENV')).toBe('production');
    // Nothing the server would warn about at start (a setting without effect, a misspelling), as its user.
    const environment = Object.fromEntries([...env].map(([name, value]) => [name, value ?? '']));
    expect(configurationWarnings(environment, pod?.securityContext?.runAsUser)).toEqual([]);
    // The image's SQLite path is emptied: set, the server warns it has no effect beside DATABASE_URL_FILE.
    expect(env.get('DATABASE_PATH')).toBe('');
    for (const name of ['DATABASE_URL', 'DATABASE_PASSWORD', 'CURSOR_SECRETS', 'DEVICE_COOKIE_SECRETS', 'SIGN_IN_COUNTER_SECRETS'])
      expect(env.has(name), name).toBe(false);
    expect((container?.env ?? []).filter((variable) => variable.valueFrom !== undefined)).toEqual([]);
    expect(container?.envFrom).toBeUndefined();
  });

  it("mounts the Secret's keys as the files the _FILE variables name, read-only", () => {
    const mount = container?.volumeMounts?.find((candidate) => candidate.name === 'secrets');
    expect(mount?.readOnly).toBe(true);
    const volume = pod?.volumes?.find((candidate) => candidate.name === 'secrets');
    expect(volume?.secret?.secretName).toBe(secret.metadata?.name);
    const fileVariables = ['DATABASE_URL_FILE', 'CURSOR_SECRETS_FILE', 'DEVICE_COOKIE_SECRETS_FILE', 'SIGN_IN_COUNTER_SECRETS_FILE'];
    const mounted = new Map((volume?.secret?.items ?? []).map((item) => [`${mount?.mountPath}/${item.path}`, item.key]));
    for (const name of fileVariables) {
      const key = mounted.get(env.get(name) ?? '');
      expect(key, `${name} names a file of the Secret`).toBeDefined();
      expect(Object.keys(secret.stringData ?? {}), name).toContain(key);
    }
    // Readable by the pod's group only, not by every user of the container.
    expect(volume?.secret?.defaultMode).toBe(0o440);
  });

  it('holds placeholders only, each refused by the server if applied as it is', () => {
    expect(secret.data).toBeUndefined();
    const values = secret.stringData ?? {};
    for (const [key, value] of Object.entries(values)) expect(value, key).toContain('REPLACE-ME');
    const files: Record<string, string> = {
      '/cursor': values['cursor-secrets'] ?? '',
      '/device': values['device-cookie-secrets'] ?? '',
      '/sign-in': values['sign-in-counter-secrets'] ?? '',
    };
    for (const [variable, path] of [
      ['CURSOR_SECRETS_FILE', '/cursor'],
      ['DEVICE_COOKIE_SECRETS_FILE', '/device'],
      ['SIGN_IN_COUNTER_SECRETS_FILE', '/sign-in'],
    ] as const)
      expect(() => readSecrets({ [variable]: path }, (file) => files[file] ?? ''), variable).toThrow(ConfigError);
  });

  it('exposes the API and the web application through the Service, never the ops port', () => {
    const targets = (service.spec?.ports ?? []).map((port) => port.targetPort);
    expect(targets.sort()).toEqual(['api', 'web']);
    expect((service.spec?.ports ?? []).map((port) => port.port)).not.toContain(opsPort?.containerPort);
    expect(service.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
  });

  it('keeps an instance serving through a node drain and a rolling update', () => {
    const budget = one<IPodDisruptionBudget>('PodDisruptionBudget');
    expect(budget.spec?.selector?.matchLabels).toEqual(deployment.spec?.selector.matchLabels);
    expect(deployment.spec?.replicas).toBeGreaterThan(Number(budget.spec?.maxUnavailable));
    expect(deployment.spec?.strategy?.rollingUpdate?.maxUnavailable).toBe(0);
    expect(deployment.spec?.template.metadata?.labels).toMatchObject(deployment.spec?.selector.matchLabels ?? {});
  });
});
