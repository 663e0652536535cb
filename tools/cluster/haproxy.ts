/**
 * HAProxy in front of the cluster's instances, from the file the project ships for operators
 * (`deploy/haproxy.cfg`): the binds come through the environment (`API_BIND`, `WEB_BIND`), and the `server`
 * lines of its two backends are replaced by the instances started here. Nothing else of the file is changed,
 * so the trial runs what production runs: the `/readyz` health check on each instance's ops listener,
 * `option forwardfor`, the retries.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { type LaunchedProcess, type LaunchOptions, launch } from '../process/launch.js';

/** The configuration operators are given, and the cluster runs. */
export const HAPROXY_CONFIG = resolve(projectRoot, 'deploy/haproxy.cfg');

/** One instance as HAProxy sees it: where its two listeners and its ops listener are. */
export interface Upstream {
  name: string;
  host: string;
  port: number;
  webPort: number;
  opsPort: number;
  /** The local address HAProxy connects from (`source`): the one address the instance trusts for X-Forwarded-For. */
  source?: string;
}

/** Which listener of an instance each backend of `deploy/haproxy.cfg` sends to. */
const BACKENDS = { api: 'port', web: 'webPort' } as const;

/**
 * The shipped configuration with each backend's `server` lines replaced by one line per upstream
 * (its listener for that backend, checked on its ops port); throws if the file has lost a backend or
 * its `server` lines, so a broken file fails here and not at the first request.
 */
export function clusterConfig(shipped: string, upstreams: readonly Upstream[]): string {
  const output: string[] = [];
  const replaced = new Set<string>();
  let section = '';
  for (const line of shipped.split('\n')) {
    if (/^\S/.test(line) && !line.startsWith('#')) section = line.trim();
    const backend = /^backend (\S+)$/.exec(section)?.[1];
    if (backend !== undefined && backend in BACKENDS && /^\s+server\s/.test(line)) {
      if (!replaced.has(backend)) {
        const listener = BACKENDS[backend as keyof typeof BACKENDS];
        for (const upstream of upstreams)
          output.push(
            `  server ${upstream.name} ${upstream.host}:${upstream[listener]} check port ${upstream.opsPort}${upstream.source ? ` source ${upstream.source}` : ''}`,
          );
        replaced.add(backend);
      }
      continue;
    }
    output.push(line);
  }
  const missing = Object.keys(BACKENDS).filter((backend) => !replaced.has(backend));
  if (missing.length > 0) throw new Error(`${HAPROXY_CONFIG} has no server lines in backend ${missing.join(', ')}`);
  return output.join('\n');
}

export interface HaproxyOptions {
  upstreams: readonly Upstream[];
  /** Where the public API and the web application are served, `host:port`. */
  apiBind: string;
  webBind: string;
  /** The file the configuration is written to. */
  configFile: string;
  onOutput?: LaunchOptions['onOutput'];
}

/** Starts Debian's HAProxy in the foreground (`-db`) on the shipped configuration; resolves once both binds accept connections. */
export async function startHaproxy(options: HaproxyOptions): Promise<LaunchedProcess> {
  writeFileSync(options.configFile, clusterConfig(readFileSync(HAPROXY_CONFIG, 'utf8'), options.upstreams));
  const haproxy = launch(['haproxy', '-db', '-f', options.configFile], {
    env: { API_BIND: options.apiBind, WEB_BIND: options.webBind, PATH: `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin` },
    ...(options.onOutput !== undefined && { onOutput: options.onOutput }),
  });
  for (const bind of [options.apiBind, options.webBind]) await accepting(bind, haproxy);
  return haproxy;
}

/** Resolves once HAProxy accepts connections on `bind` (`host:port`); throws with its output if it ends or never does. */
export async function accepting(bind: string, haproxy: LaunchedProcess): Promise<void> {
  const at = bind.lastIndexOf(':');
  const [host, port] = [bind.slice(0, at) || '127.0.0.1', Number(bind.slice(at + 1))];
  for (let tries = 0; tries < 100; tries++) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, host, () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    if (haproxy.exitStatus()) throw new Error(`haproxy ended: ${haproxy.outputTail()}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
  throw new Error(`haproxy does not accept connections on ${bind}: ${haproxy.outputTail()}`);
}
