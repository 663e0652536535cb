/**
 * The server's production V8 flags (`src/config/node-flags.ts`) are written where the server is started for
 * production, since V8 reads them from the command line only: `npm run start:prod`, the image's `CMD` and the
 * systemd unit (`deploy/systemd/bearer-list-api.service`). The bench's rows of this project take them from the same list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/config/node-flags.js';
import { projectRoot } from '../../src/contract/project.js';
import { SERVERS } from '../../tools/bench/lib/servers.js';

const read = (file: string) => readFileSync(join(projectRoot, file), 'utf8');
const flags = SERVER_NODE_FLAGS.join(' ');

describe("the server's production V8 flags", () => {
  it('are on the command line of every production start', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts['start:prod'], 'package.json start:prod').toBe(`exec node ${flags} bin/run-built.mjs server`);
    expect(read('Dockerfile'), 'the image').toContain(
      `CMD ["node", ${SERVER_NODE_FLAGS.map((flag) => JSON.stringify(flag)).join(', ')}, "bin/run-built.mjs", "server"]`,
    );
    expect(read('deploy/systemd/bearer-list-api.service'), 'the systemd unit').toContain(`ExecStart=/usr/bin/node ${flags} bin/run-built.mjs server`);
  });

  it("are on the bench's command line of this project, compiled or under tsx", () => {
    for (const compiled of [true, false]) {
      const { argv } = SERVERS.project.launch({ port: 1, host: '127.0.0.1', key: 'k', ownerId: 'o', mockSpec: '', logLevel: 'info', compiled });
      expect(argv.slice(1, 1 + SERVER_NODE_FLAGS.length)).toEqual([...SERVER_NODE_FLAGS]);
    }
  });
});
