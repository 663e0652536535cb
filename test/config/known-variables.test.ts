import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationWarnings } from '../../src/config/env.js';
import { KNOWN_VARIABLES, unknownVariableWarnings } from '../../src/config/known-variables.js';

describe('settings the server does not read', () => {
  it('names a close misspelling and what was meant', () => {
    expect(unknownVariableWarnings({ DATABSE_URL: 'postgres://h/db' })).toEqual([
      'DATABSE_URL is not a setting of this server and is ignored: did you mean DATABASE_URL? (docs/server.md, "Environment variables")',
    ]);
    expect(unknownVariableWarnings({ OPS_PROT: '9464' })[0]).toMatch(/did you mean OPS_PORT\?/);
  });

  it('names anything under the server’s own prefixes it does not read', () => {
    expect(unknownVariableWarnings({ DATABASE_REPLICA_URL: 'x' })).toEqual([
      'DATABASE_REPLICA_URL is not a setting of this server and is ignored (docs/server.md, "Environment variables" lists them)',
    ]);
  });

  it('leaves alone what other software reads and every setting it knows', () => {
    const env = Object.fromEntries(
      [...KNOWN_VARIABLES, 'PATH', 'HOME', 'PWD', 'NODE_OPTIONS', 'OTEL_TRACES_SAMPLER', 'PGPASSWORD', 'npm_config_cache', 'TERM'].map((name) => [name, 'x']),
    );
    expect(unknownVariableWarnings(env)).toEqual([]);
  });

  it('are among the warnings logged at start', () => {
    expect(configurationWarnings({ DATABSE_URL: 'postgres://h/db' }, 1000)).toContainEqual(expect.stringMatching(/^DATABSE_URL is not a setting/));
  });

  it('are exactly the variables docs/server.md lists', () => {
    const table =
      readFileSync(new URL('../../docs/server.md', import.meta.url), 'utf8')
        .split('## Environment variables')[1]
        ?.split('\n## ')[0] ?? '';
    const documented = new Set([...table.matchAll(/^\| (`[A-Z0-9_]+`(?:, `[A-Z0-9_]+`)*) \|/gm)].flatMap((row) => (row[1] ?? '').match(/[A-Z0-9_]+/g) ?? []));
    expect([...documented].sort()).toEqual([...KNOWN_VARIABLES].sort());
  });
});
