/** The alert rules shipped for operators name only metrics the server serves: a renamed metric fails here, not in production. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../../src/contract/project.js';
import { createMetrics } from '../../src/ops/metrics.js';

const rules = parse(readFileSync(join(projectRoot, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
  groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
};

/** Every series name the server's /metrics declares (`# TYPE`), with a histogram's `_bucket`, `_count` and `_sum`. */
async function servedNames(): Promise<Set<string>> {
  const text = await createMetrics({ storeStats: () => undefined, pool: true }).metrics();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name as string);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(`${name}${suffix}`);
  }
  return names;
}

describe('deploy/prometheus/alerts.yml', () => {
  it('names only metrics the server serves (and Prometheus’ own up)', async () => {
    const served = await servedNames();
    const alerts = rules.groups.flatMap((group) => group.rules);
    expect(alerts.length).toBeGreaterThan(5);
    for (const { alert, expr } of alerts) {
      const named = [...expr.matchAll(/\b([a-z_][a-z0-9_]*)\s*\{/g)].map((match) => match[1] as string);
      expect(named.length, alert).toBeGreaterThan(0);
      for (const name of named) expect(name === 'up' || served.has(name), `${alert} names ${name}, which /metrics does not serve`).toBe(true);
    }
  });
});
