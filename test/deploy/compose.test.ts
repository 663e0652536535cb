/**
 * deploy/compose.yaml, checked without a compose tool (none runs on the test machine): only keys of the Compose
 * specification's essentials, each reference resolved (secrets, volumes, networks, the services it depends on, the
 * Dockerfile, haproxy.cfg), the server's variables known and silent, and its agreement with deploy/haproxy.cfg,
 * which it runs unchanged: the instances' addresses and ports are the file's `server` lines, HAProxy's address the
 * one they trust.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { configurationWarnings, DEFAULT_MAX_CONNECTIONS, readServerConfig } from '../../src/config/env.js';
import { KNOWN_VARIABLES } from '../../src/config/known-variables.js';
import { projectRoot } from '../../src/contract/project.js';
import { HAPROXY_CONFIG } from '../../tools/cluster/haproxy.js';

const COMPOSE_FILE = resolve(projectRoot, 'deploy/compose.yaml');
const folder = dirname(COMPOSE_FILE);

interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  ports?: string[];
  depends_on?: string[] | Record<string, { condition: string }>;
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  stop_grace_period?: string;
  user?: string;
  healthcheck?: { test: string[] };
  [key: string]: unknown;
}
interface Compose {
  services: Record<string, Service>;
  networks?: Record<string, { ipam?: { config: Array<{ subnet: string }> } }>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file: string }>;
  [key: string]: unknown;
}

/** The Compose specification's top-level keys, and the keys of a service this file may use (a subset of the spec's). */
const TOP_LEVEL = ['name', 'services', 'networks', 'volumes', 'secrets', 'configs', 'include'];
const SERVICE_KEYS = [
  'build',
  'image',
  'command',
  'entrypoint',
  'environment',
  'env_file',
  'secrets',
  'configs',
  'volumes',
  'ports',
  'expose',
  'depends_on',
  'networks',
  'healthcheck',
  'restart',
  'read_only',
  'cap_drop',
  'cap_add',
  'security_opt',
  'user',
  'stop_grace_period',
  'stop_signal',
  'tmpfs',
  'ulimits',
  'deploy',
  'logging',
];
const DEPENDS_CONDITIONS = ['service_started', 'service_healthy', 'service_completed_successfully'];

function loadCompose(): Compose {
  // Merge keys (`<<: *api`) as Compose reads them.
  const document = parseDocument(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true });
  if (document.errors.length > 0 || document.warnings.length > 0) throw new Error([...document.errors, ...document.warnings].map(String).join('; '));
  return document.toJS() as Compose;
}

const compose = loadCompose();
const instances = Object.entries(compose.services).filter(([, service]) => service.build !== undefined || service.image?.startsWith('bearer-list-api'));
const haproxy = compose.services['haproxy'];
/** A service's address on the backend network, when it has a fixed one. */
const addressOf = (service: Service | undefined) => (Array.isArray(service?.networks) ? undefined : service?.networks?.['backend']?.ipv4_address);

/** The `server` lines of deploy/haproxy.cfg, backend by backend: `instance1 10.0.0.11:3000 check port 9464`. */
function haproxyServers(): Array<{ backend: string; address: string; port: number; checkPort: number }> {
  let backend = '';
  const servers: Array<{ backend: string; address: string; port: number; checkPort: number }> = [];
  for (const line of readFileSync(HAPROXY_CONFIG, 'utf8').split('\n')) {
    const section = /^backend (\S+)$/.exec(line);
    if (section?.[1]) backend = section[1];
    const server = /^\s+server \S+ ([\d.]+):(\d+) check port (\d+)$/.exec(line);
    if (server) servers.push({ backend, address: server[1] ?? '', port: Number(server[2]), checkPort: Number(server[3]) });
  }
  return servers;
}

describe('deploy/compose.yaml', () => {
  it('uses only keys of the Compose specification, and each service is built or pulled', () => {
    expect(Object.keys(compose).filter((key) => !TOP_LEVEL.includes(key) && !key.startsWith('x-'))).toEqual([]);
    expect(Object.keys(compose.services).sort()).toEqual(['api1', 'api2', 'haproxy', 'postgres']);
    for (const [name, service] of Object.entries(compose.services)) {
      expect(
        Object.keys(service).filter((key) => !SERVICE_KEYS.includes(key)),
        name,
      ).toEqual([]);
      expect(service.image ?? service.build, name).toBeDefined();
    }
  });

  it('resolves every reference: secrets, volumes, networks, dependencies, files', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const secret of service.secrets ?? []) expect(Object.keys(compose.secrets ?? {}), `${name} secret`).toContain(secret);
      const networks = Array.isArray(service.networks) ? service.networks : Object.keys(service.networks ?? {});
      for (const network of networks) expect(Object.keys(compose.networks ?? {}), `${name} network`).toContain(network);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (source.startsWith('.')) expect(existsSync(resolve(folder, source)), `${name} mounts ${source}`).toBe(true);
        else expect(Object.keys(compose.volumes ?? {}), `${name} volume`).toContain(source);
      }
      const dependencies = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
      for (const dependency of dependencies) expect(Object.keys(compose.services), `${name} depends on`).toContain(dependency);
      if (service.depends_on && !Array.isArray(service.depends_on))
        for (const { condition } of Object.values(service.depends_on)) expect(DEPENDS_CONDITIONS).toContain(condition);
      if (service.build) expect(existsSync(resolve(folder, service.build.context, service.build.dockerfile)), `${name} builds`).toBe(true);
    }
    // The secrets' files are the operator's, made on the host: git ignores them.
    for (const { file } of Object.values(compose.secrets ?? {})) {
      expect(resolve(folder, file).startsWith(resolve(folder, 'secrets'))).toBe(true);
      expect(readFileSync(resolve(folder, 'secrets/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    }
  });

  it('builds the server from the Dockerfile and runs its own command (the V8 flag is in the image)', () => {
    expect(instances.map(([name]) => name).sort()).toEqual(['api1', 'api2']);
    for (const [name, service] of instances) {
      expect(service.build, name).toEqual({ context: '..', dockerfile: 'Dockerfile' });
      expect(service['command'], name).toBeUndefined();
      expect(service['entrypoint'], name).toBeUndefined();
    }
  });

  it("sets only the server's variables, none it would warn about, PostgreSQL with the password from a secret", () => {
    const known = new Set<string>(KNOWN_VARIABLES);
    for (const [name, service] of instances) {
      const environment = service.environment ?? {};
      expect(
        Object.keys(environment).filter((variable) => !known.has(variable)),
        name,
      ).toEqual([]);
      expect(configurationWarnings(environment, 61_000), name).toEqual([]);
      expect(environment['NODE_ENV']).toBe('production');
      expect(new URL(environment['DATABASE_URL'] ?? '').password, 'no password in the URL').toBe('');
      expect(environment['DATABASE_PASSWORD_FILE']).toBe(`/run/secrets/${service.secrets?.[0]}`);
      // Its own copy of PostgreSQL's password, so each file is readable by the one user that reads it.
      expect(service.secrets).toEqual(['database-password']);
      expect(compose.services['postgres']?.secrets).toEqual(['postgres-password']);
      // A fixed, non-root user the file can be given to.
      expect(service.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
      expect(new URL(environment['DATABASE_URL'] ?? '').hostname).toBe('postgres');
      // Every connection comes from HAProxy.
      expect(environment['MAX_CONNECTIONS_PER_ADDRESS']).toBe(String(DEFAULT_MAX_CONNECTIONS));
      // As the server reads them; the database settings left out, since the password's file is the host's.
      const { DATABASE_URL: _url, DATABASE_PASSWORD_FILE: _password, ...rest } = environment;
      const config = readServerConfig({ ...rest, DATABASE_PATH: ':memory:' });
      expect(Number.parseInt(service.stop_grace_period ?? '', 10)).toBeGreaterThan(config.shutdownDelaySeconds + config.shutdownGraceMs / 1000);
    }
  });

  it('runs the instances read-only, without capabilities, unpublished, after PostgreSQL is healthy', () => {
    for (const [name, service] of [...instances, ['haproxy', haproxy] as const]) {
      expect(service?.read_only, name).toBe(true);
      expect(service?.cap_drop, name).toEqual(['ALL']);
      expect(service?.security_opt, name).toContain('no-new-privileges:true');
    }
    for (const [name, service] of instances) {
      expect(service.ports, `${name} publishes nothing (the ops port least of all)`).toBeUndefined();
      expect(service.depends_on, name).toEqual({ postgres: { condition: 'service_healthy' } });
    }
    expect(compose.services['postgres']?.healthcheck?.test).toContain('pg_isready');
  });

  it('runs deploy/haproxy.cfg unchanged: its server lines are the instances, its address the one they trust', () => {
    expect(haproxy?.volumes).toEqual(['./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro']);
    expect(resolve(folder, './haproxy.cfg')).toBe(HAPROXY_CONFIG);
    expect(haproxy?.ports).toEqual([`${haproxy?.environment?.['API_BIND']?.slice(1)}:3000`, `${haproxy?.environment?.['WEB_BIND']?.slice(1)}:3001`]);
    const listeners = { api: 'PORT', web: 'WEB_PORT' } as const;
    const servers = haproxyServers();
    expect(servers).toHaveLength(2 * instances.length);
    for (const server of servers) {
      const instance = instances.find(([, service]) => addressOf(service) === server.address);
      expect(instance, `an instance at ${server.address}`).toBeDefined();
      const environment = instance?.[1].environment ?? {};
      expect(server.port).toBe(Number(environment[listeners[server.backend as keyof typeof listeners]]));
      expect(server.checkPort).toBe(Number(environment['OPS_PORT']));
      expect(environment['TRUSTED_PROXIES']).toBe(addressOf(haproxy));
    }
    const subnet = compose.networks?.['backend']?.ipam?.config[0]?.subnet ?? '';
    const prefix = subnet.split('.').slice(0, 3).join('.');
    expect(subnet.endsWith('.0/24')).toBe(true);
    for (const service of Object.values(compose.services)) {
      const address = addressOf(service);
      if (address) expect(address.startsWith(`${prefix}.`), address).toBe(true);
    }
  });
});
