/**
 * The cluster runs the HAProxy configuration operators are given (`deploy/haproxy.cfg`), changed only in its
 * `server` lines: every other line, the health check and `option forwardfor` among them, is the shipped one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_CONNECTIONS } from '../../../src/config/env.js';
import { clusterConfig, HAPROXY_CONFIG } from '../../../tools/cluster/haproxy.js';

const shipped = readFileSync(HAPROXY_CONFIG, 'utf8');
const upstreams = [
  { name: 'instance1', host: '127.0.0.1', port: 41001, webPort: 41002, opsPort: 41003 },
  { name: 'instance2', host: '127.0.0.1', port: 42001, webPort: 42002, opsPort: 42003 },
];

describe('deploy/haproxy.cfg in the cluster', () => {
  it('health-checks /readyz on the ops port and passes X-Forwarded-For', () => {
    expect(shipped).toMatch(/^ {2}option forwardfor$/m);
    expect(shipped.match(/^ {2}http-check send meth GET uri \/readyz ver HTTP\/1.1 hdr Host ops$/gm)).toHaveLength(2);
    expect(shipped).toMatch(/^ {2}bind "\$\{API_BIND-:3000\}"$/m);
    expect(shipped).toMatch(/^ {2}bind "\$\{WEB_BIND-:3001\}"$/m);
  });

  // An instance closes, unanswered, a connection over MAX_CONNECTIONS; HAProxy then answers its client 502 and does not
  // retry a request it sent. Its idle pooled connections count there too: the busy ones (maxconn, queued beyond) and
  // the idle ones (pool-max-conn) together stay under the cap, so a burst waits in HAProxy's queue instead.
  it("opens fewer connections to an instance than the instance's default MAX_CONNECTIONS", () => {
    const defaults = /^ {2}default-server .*\bmaxconn (\d+) pool-max-conn (\d+)\b/m.exec(shipped);
    expect(defaults, 'default-server sets maxconn and pool-max-conn').not.toBeNull();
    expect(Number(defaults?.[1]) + Number(defaults?.[2])).toBeLessThan(DEFAULT_MAX_CONNECTIONS);
  });

  it("replaces each backend's server lines with the instances, and nothing else", () => {
    const config = clusterConfig(shipped, upstreams);
    const withoutServers = (text: string) => text.split('\n').filter((line) => !/^\s+server\s/.test(line));
    expect(withoutServers(config)).toEqual(withoutServers(shipped));
    const servers = config.split('\n').filter((line) => /^\s+server\s/.test(line));
    expect(servers).toEqual([
      '  server instance1 127.0.0.1:41001 check port 41003',
      '  server instance2 127.0.0.1:42001 check port 42003',
      '  server instance1 127.0.0.1:41002 check port 41003',
      '  server instance2 127.0.0.1:42002 check port 42003',
    ]);
  });

  it('refuses a file that lost a backend', () => {
    expect(() => clusterConfig(shipped.replace(/^backend web$[\s\S]*/m, ''), upstreams)).toThrow(/no server lines in backend web/);
  });
});
