/**
 * `deploy/nginx.conf` as the tests run it: the shipped file with the ports of its `listen` lines and the addresses of
 * its upstreams' `server` lines replaced (every other line, the retries, the error page, the headers, is the shipped
 * one), included in the smallest main configuration nginx runs from a folder of its own, in the foreground.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';
import { accepting } from '../../tools/cluster/haproxy.js';
import { type LaunchedProcess, launch } from '../../tools/process/launch.js';

export const NGINX_CONFIG = resolve(projectRoot, 'deploy/nginx.conf');

/** Where Debian's package puts it; the slow tests fail with this line where it is missing, never skip. */
export const NGINX = '/usr/sbin/nginx';
export const NGINX_MISSING = `nginx is not installed at ${NGINX}: run \`apt-get install -y nginx\` (Debian's package, 1.22 or later)`;

/** Which upstream of the file each listener's instances go in, and which `server` block listens for it. */
export interface NginxPorts {
  /** The public API's listen port, and each instance's PORT (`host:port`). */
  apiListen: number;
  api: readonly string[];
  /** The web application's listen port, and each instance's WEB_PORT. */
  webListen: number;
  web: readonly string[];
}

/**
 * The shipped file with its two `listen` lines and its two upstreams' `server` lines replaced, each `server` line
 * keeping its parameters (`max_fails`, `fail_timeout`). Throws when the file has lost an upstream, a listen line or
 * its server lines, so a broken file fails here and not at the first request.
 */
export function nginxConfigFor(shipped: string, ports: NginxPorts): string {
  const upstreams: Record<string, readonly string[]> = { bearer_list_api: ports.api, bearer_list_web: ports.web };
  const listens = [ports.apiListen, ports.webListen];
  const output: string[] = [];
  let upstream: string | undefined;
  const replaced = new Set<string>();
  let listened = 0;
  for (const line of shipped.split('\n')) {
    const opens = /^upstream (\S+) \{$/.exec(line);
    if (opens) upstream = opens[1];
    else if (line === '}') upstream = undefined;
    const server = /^(\s+)server \S+( [^;]*)?;$/.exec(line);
    if (upstream !== undefined && server) {
      if (!replaced.has(upstream)) {
        for (const address of upstreams[upstream] ?? []) output.push(`${server[1]}server ${address}${server[2] ?? ''};`);
        replaced.add(upstream);
      }
      continue;
    }
    const listen = /^(\s+)listen \d+;$/.exec(line);
    if (listen) {
      const port = listens[listened++];
      if (port === undefined) throw new Error(`${NGINX_CONFIG} has more than two listen lines`);
      output.push(`${listen[1]}listen 127.0.0.1:${port};`);
      continue;
    }
    output.push(line);
  }
  const missing = Object.keys(upstreams).filter((name) => !replaced.has(name));
  if (missing.length > 0) throw new Error(`${NGINX_CONFIG} has no server lines in upstream ${missing.join(', ')}`);
  if (listened !== 2) throw new Error(`${NGINX_CONFIG} has ${listened} plain listen lines, not 2 (the API's, the web application's)`);
  return output.join('\n');
}

/**
 * The main configuration around the file, as Debian's /etc/nginx/nginx.conf includes conf.d/: in the foreground, its
 * pid and temporary files in `folder`, errors on stderr. One worker: the passive health state (max_fails) is per
 * worker, and one makes the test's counts what one worker saw.
 */
export function nginxMainConfig(folder: string, included: string): string {
  const temporary = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(folder, kind)};`);
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${join(folder, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...temporary,
    `  include ${included};`,
    '}',
    '',
  ].join('\n');
}

/** Starts nginx on the shipped file with `ports`, from `folder`; resolves once both listeners accept connections. */
export async function startNginx(folder: string, ports: NginxPorts): Promise<LaunchedProcess> {
  mkdirSync(folder, { recursive: true });
  const included = join(folder, 'bearer-list-api.conf');
  writeFileSync(included, nginxConfigFor(readFileSync(NGINX_CONFIG, 'utf8'), ports));
  const main = join(folder, 'nginx.conf');
  writeFileSync(main, nginxMainConfig(folder, included));
  const nginx = launch([NGINX, '-p', folder, '-c', main]);
  try {
    for (const port of [ports.apiListen, ports.webListen]) await accepting(`127.0.0.1:${port}`, nginx);
  } catch (error) {
    // `accepting` is HAProxy's and words its message so: the output is nginx's.
    await nginx.stop();
    throw new Error(`nginx did not start on ${included}: ${nginx.outputTail()}`, { cause: error });
  }
  return nginx;
}
