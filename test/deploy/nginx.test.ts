/**
 * deploy/nginx.conf, read without nginx (nginx.slow.test.ts runs it): the settings docs/deploying.md promises, its
 * own answer a problem the contract accepts, and the test's copy changed in its ports and upstream addresses only.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBLEM_TYPES } from '../../src/http/problems.js';
import { expectHonoursContract } from '../helpers/contract.js';
import { NGINX_CONFIG, nginxConfigFor } from './nginx-harness.js';

const shipped = readFileSync(NGINX_CONFIG, 'utf8');
/** The directives of each `location`, by its name, whatever server it is in (both servers hold the same ones). */
const directives = (name: string) => shipped.match(new RegExp(`^ {4}${name} [^\\n]*;$`, 'gm')) ?? [];

describe('deploy/nginx.conf', () => {
  it('checks its instances passively and keeps fewer idle connections than they accept', () => {
    const servers = shipped.match(/^ {2}server \S+ [^;]*;$/gm) ?? [];
    expect(servers).toHaveLength(4);
    for (const server of servers) expect(server).toMatch(/ max_fails=1 fail_timeout=\d+s;$/);
    expect(shipped.match(/^ {2}keepalive 16;$/gm)).toHaveLength(2);
  });

  it('retries elsewhere only what is safe to send twice, and passes the client on', () => {
    expect(directives('proxy_next_upstream')).toEqual(['    proxy_next_upstream error timeout http_502;', '    proxy_next_upstream error timeout http_502;']);
    // nginx resends a POST or a PATCH an instance has received only with this flag: never here.
    expect(shipped).not.toMatch(/^[^#]*non_idempotent/m);
    expect(directives('proxy_set_header X-Forwarded-For')).toEqual(Array(2).fill('    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;'));
    // Keep-alive to the instances: HTTP/1.1 and no `Connection: close` passed on.
    expect(directives('proxy_set_header Connection')).toHaveLength(2);
    expect(directives('proxy_http_version')).toEqual(Array(2).fill('    proxy_http_version 1.1;'));
  });

  it("answers its own errors with the contract's service-unavailable problem, Retry-After 2, as 503", () => {
    expect(shipped.match(/^ {2}error_page 502 503 504 =503 @unavailable;$/gm)).toHaveLength(2);
    expect(shipped).not.toMatch(/proxy_intercept_errors on/);
    expect(directives('add_header Retry-After')).toEqual(Array(2).fill('    add_header Retry-After 2 always;'));
    expect(directives('default_type')).toEqual(Array(2).fill('    default_type application/problem+json;'));
    const bodies = [...shipped.matchAll(/^ {4}return 503 '(.*)';$/gm)].map((match) => match[1] ?? '');
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      // nginx fills in its request id: 32 hexadecimal digits.
      const text = body.replace('$request_id', '0123456789abcdef0123456789abcdef');
      const problem = JSON.parse(text) as { type: keyof typeof PROBLEM_TYPES; title: string; status: number };
      expect(PROBLEM_TYPES[problem.type]).toEqual({ status: problem.status, title: problem.title });
      expectHonoursContract(
        'listSharedItems',
        { status: 503, headers: new Headers({ 'content-type': 'application/problem+json', 'retry-after': '2' }), body: text },
        true,
      );
    }
  });

  it("changes only the listen ports and the upstreams' addresses for the tests, keeping each server's parameters", () => {
    const config = nginxConfigFor(shipped, { apiListen: 41000, webListen: 41001, api: ['127.0.0.1:1', '127.0.0.1:2'], web: ['127.0.0.1:3', '127.0.0.1:4'] });
    const changed = (line: string) => /^\s+(server \d|listen )/.test(line);
    expect(config.split('\n').filter((line) => !changed(line))).toEqual(shipped.split('\n').filter((line) => !changed(line)));
    expect(config.split('\n').filter(changed)).toEqual([
      '  server 127.0.0.1:1 max_fails=1 fail_timeout=3s;',
      '  server 127.0.0.1:2 max_fails=1 fail_timeout=3s;',
      '  server 127.0.0.1:3 max_fails=1 fail_timeout=3s;',
      '  server 127.0.0.1:4 max_fails=1 fail_timeout=3s;',
      '  listen 127.0.0.1:41000;',
      '  listen 127.0.0.1:41001;',
    ]);
    expect(() => nginxConfigFor(shipped.replace(/^upstream bearer_list_web \{[\s\S]*?^\}$/m, ''), { apiListen: 1, webListen: 2, api: [], web: [] })).toThrow(
      /no server lines in upstream bearer_list_web/,
    );
  });
});
