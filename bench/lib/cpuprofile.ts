// Reads a V8 .cpuprofile (node --cpu-prof) into self time per function and per module.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  where: string;
  selfMs: number;
  share: number;
}

export interface ProfileSummary {
  /** Time covered by the samples counted. */
  totalMs: number;
  /** The part of it the process was not idle. */
  busyMs: number;
  functions: SelfTime[];
  modules: SelfTime[];
  /**
   * Time in a function and everything it calls (`selfMs` holds that total here), for the
   * project's own code and Hono's middleware: where the project's extra cost per request
   * starts. An async function's part after its first `await` is counted where it resumes.
   */
  inclusive: SelfTime[];
}

/**
 * Self time of every function and of every module (a package, a project folder, Node's
 * internals). With `lastMs`, only the samples of the profile's last `lastMs` count
 * (the load, without the startup before it).
 */
export function summariseProfile(file: string, lastMs = Number.POSITIVE_INFINITY): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const endUs = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
  const fromUs = endUs - lastMs * 1000;
  const selfUs = new Map<number, number>();
  let atUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    atUs += delta;
    if (atUs >= fromUs) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const totalUs = [...selfUs.values()].reduce((sum, value) => sum + value, 0);
  const idleUs = [...selfUs].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((sum, [, us]) => sum + us, 0);

  const functions = new Map<string, SelfTime>();
  const modules = new Map<string, SelfTime>();
  const add = (table: Map<string, SelfTime>, key: string, name: string, where: string, us: number) => {
    const entry = table.get(key) ?? { name, where, selfMs: 0, share: 0 };
    entry.selfMs += us / 1000;
    entry.share = (entry.selfMs * 1000) / totalUs;
    table.set(key, entry);
  };
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const name = frame.functionName || '(anonymous)';
    add(functions, `${name}@${where}`, name, where, us);
    const module = moduleOf(frame.url, name);
    add(modules, module, module, '', us);
  }
  const top = (table: Map<string, SelfTime>) => [...table.values()].sort((a, b) => b.selfMs - a.selfMs);
  const busyUs = totalUs - idleUs;
  const inclusive = inclusiveTimes(profile, byId, selfUs, busyUs, (url) => /\/src\/|hono\/dist\/middleware\//.test(url));
  return { totalMs: totalUs / 1000, busyMs: busyUs / 1000, functions: top(functions), modules: top(modules), inclusive: top(inclusive) };
}

/** Total time under each matching function, counted once where a function calls itself further down. */
function inclusiveTimes(
  profile: CpuProfile,
  byId: Map<number, ProfileNode>,
  selfUs: Map<number, number>,
  busyUs: number,
  wanted: (url: string) => boolean,
): Map<string, SelfTime> {
  const childIds = new Set(profile.nodes.flatMap((node) => node.children ?? []));
  const totals = new Map<string, SelfTime>();
  const visit = (id: number, open: Set<string>): number => {
    const node = byId.get(id);
    if (!node) return 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = wanted(url) ? `${functionName || '(anonymous)'}@${shortUrl(url)}:${lineNumber + 1}` : undefined;
    const counts = key !== undefined && !open.has(key);
    if (counts) open.add(key);
    let us = selfUs.get(id) ?? 0;
    for (const child of node.children ?? []) us += visit(child, open);
    if (counts) {
      open.delete(key);
      const entry = totals.get(key) ?? { name: functionName || '(anonymous)', where: `${shortUrl(url)}:${lineNumber + 1}`, selfMs: 0, share: 0 };
      entry.selfMs += us / 1000;
      entry.share = (entry.selfMs * 1000) / busyUs;
      totals.set(key, entry);
    }
    return us;
  };
  for (const node of profile.nodes) if (!childIds.has(node.id)) visit(node.id, new Set());
  return totals;
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith(projectRoot) ? relative(projectRoot, path) : path;
}

/** `node_modules/<package>`, the project folder (`src/server`), `node:internal`, or V8's own entries such as (garbage collector). */
function moduleOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const path = shortUrl(url);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1]!;
  if (path.startsWith('node:')) return 'node:internal';
  return path.split('/').slice(0, 2).join('/');
}
