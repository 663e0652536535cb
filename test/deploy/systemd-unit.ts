/** deploy/systemd/bearer-list-api.service, read as systemd reads a unit file: sections of `Key=value` lines, a key given again adds a value. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

export const UNIT_FILE = resolve(projectRoot, 'deploy/systemd/bearer-list-api.service');

/** Each section's keys, with every value given, in order. */
export type Unit = Record<string, Record<string, string[]>>;

export function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header?.[1]) {
      section = unit[header[1]] = {};
      continue;
    }
    const pair = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!pair?.[1] || !section) throw new Error(`${UNIT_FILE}:${index + 1}: not a Key=value line in a section: ${line}`);
    const values = section[pair[1]] ?? [];
    values.push(pair[2] ?? '');
    section[pair[1]] = values;
  }
  return unit;
}

export const unit = (): Unit => parseUnit(readFileSync(UNIT_FILE, 'utf8'));

/** The environment the unit gives the server: its `Environment=` assignments (no quoting is used in the file). */
export function unitEnvironment(service: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries(
    (service['Environment'] ?? []).flatMap((assignments) =>
      assignments.split(/\s+/).map((assignment) => {
        const at = assignment.indexOf('=');
        return [assignment.slice(0, at), assignment.slice(at + 1)];
      }),
    ),
  );
}
