// Reads a V8 .cpuprofile (node --cpu-prof) into self time per function and per module.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { projectRoot } from '../../src/contract/project.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
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
  return { totalMs: totalUs / 1000, busyMs: (totalUs - idleUs) / 1000, functions: top(functions), modules: top(modules) };
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
