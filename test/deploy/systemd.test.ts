/**
 * deploy/systemd/bearer-list-api.service holds what a production start needs: the server's V8 flags, restarts that do
 * not repeat a configuration error, an [Install] section, a stop timeout above the drain, the hardening options,
 * and only variables the server reads. `systemd-analyze verify` runs on it in systemd.slow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { configurationWarnings, readServerConfig } from '../../src/config/env.js';
import { KNOWN_VARIABLES } from '../../src/config/known-variables.js';
import { SERVER_NODE_FLAGS } from '../../src/config/node-flags.js';
import { parseUnit, unit, unitEnvironment } from './systemd-unit.js';

const { Unit: section = {}, Service: service = {}, Install: install = {} } = unit();
const only = (key: string) => {
  const values = service[key] ?? [];
  if (values.length !== 1) throw new Error(`${key} is given ${values.length} times in [Service], not once`);
  return values[0];
};
const environment = unitEnvironment(service);

describe('deploy/systemd/bearer-list-api.service', () => {
  it("starts the built server with the server's V8 flags, node as the main process", () => {
    const [node, ...argv] = (only('ExecStart') ?? '').split(' ');
    expect(node).toBe('/usr/bin/node');
    expect(argv.slice(0, -2)).toEqual([...SERVER_NODE_FLAGS]);
    expect(argv.slice(-2)).toEqual(['bin/run-built.mjs', 'server']);
    expect(only('Type')).toBe('exec');
  });

  it('restarts on failure but not on a configuration error (exit 2), and is installed into multi-user.target', () => {
    expect(only('Restart')).toBe('on-failure');
    expect(only('RestartPreventExitStatus')).toBe('2');
    expect(section['StartLimitBurst']).toBeDefined();
    expect(install['WantedBy']).toEqual(['multi-user.target']);
  });

  it('waits for the drain before SIGKILL: TimeoutStopSec above SHUTDOWN_DELAY_SECONDS + SHUTDOWN_GRACE_MS as the server reads them', () => {
    const config = readServerConfig(environment);
    expect(config.shutdownDelaySeconds).toBeGreaterThan(0);
    expect(Number(only('TimeoutStopSec'))).toBeGreaterThan(config.shutdownDelaySeconds + config.shutdownGraceMs / 1000);
    expect(only('KillSignal')).toBe('SIGTERM');
  });

  it('runs as a user of its own, with the hardening options, writing only its state folder', () => {
    expect(only('DynamicUser')).toBe('yes');
    expect(only('User')).toBe('bearer-list-api');
    const hardening = {
      NoNewPrivileges: 'yes',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      CapabilityBoundingSet: '',
      AmbientCapabilities: '',
      RestrictSUIDSGID: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectControlGroups: 'yes',
      RestrictNamespaces: 'yes',
      LockPersonality: 'yes',
      UMask: '0077',
    };
    for (const [key, value] of Object.entries(hardening)) expect(only(key), key).toBe(value);
    expect(only('ReadWritePaths')).toBe(`/var/lib/${only('StateDirectory')}`);
    // The SQLite file, when used, is in the one folder it may write.
    expect(environment['DATABASE_PATH']?.startsWith(`${only('ReadWritePaths')}/`)).toBe(true);
    // V8's compiler writes machine code: with MemoryDenyWriteExecute=yes node dies at start.
    expect(only('MemoryDenyWriteExecute')).toBe('no');
  });

  it('sets only variables the server reads, and none it would warn about', () => {
    const known = new Set<string>(KNOWN_VARIABLES);
    expect(Object.keys(environment).filter((name) => !known.has(name))).toEqual([]);
    expect(environment['NODE_ENV']).toBe('production');
    expect(environment['OPS_PORT']).toBeDefined();
    expect(configurationWarnings(environment, 61_000)).toEqual([]);
    // No secret in the unit: they come as credentials, in files.
    for (const name of Object.keys(environment)) expect(name).not.toMatch(/SECRETS$|^DATABASE_URL$/);
  });

  it('reads a unit as systemd does (the parser can fail)', () => {
    expect(parseUnit('[Service]\nEnvironment=A=1\nEnvironment=B=2\n')).toEqual({ Service: { Environment: ['A=1', 'B=2'] } });
    expect(() => parseUnit('Restart=always\n')).toThrow(/not a Key=value line in a section/);
  });
});
