// Reads a V8 .cpuprofile (node --cpu-prof) into self time per function and per module.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { projectRoot } from '../../../src/contract/project.js';

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
  /** Busy time by stage of a request (see `STAGES`), largest first; `selfMs` holds the stage's time. */
  stages: SelfTime[];
}

/**
 * The stages of a request, each recognised by the frames that do its work. A sample belongs to the stage of
 * the nearest frame, from the leaf up, that one of these matches (so a hash under the key check is the key
 * check's, a socket write under the response is the response's); samples no frame matches are `other`.
 */
export const STAGES: ReadonlyArray<{ stage: string; url?: RegExp; name?: RegExp }> = [
  { stage: 'GC', name: /^\(garbage collector\)$/ },
  { stage: 'V8 and native, unattributed', name: /^\((program|anonymous)\)$/ },
  { stage: 'request log (the line, its writes)', url: /\/(pino|sonic-boom|@pinojs)\/|src\/http\/(request-log|request-lines)\.[jt]s/ },
  { stage: 'metrics', url: /src\/ops\/(metrics|tallied-histogram)\.[jt]s|\/prom-client\// },
  { stage: 'key check (parse, digest, cache, change check)', url: /src\/keys\/|src\/server\/bearer-key\.[jt]s|src\/store\/(key-cache|sqlite-changes)\.[jt]s/ },
  { stage: 'key check (parse, digest, cache, change check)', name: /^(findKeyByDigest|peekKeyByDigest|#checkForChanges|changed|#peek|admit)$/ },
  { stage: 'quota and failure budgets', url: /src\/http\/(rate-limit|failure-budget)\.[jt]s|shared-rate-limit\.[jt]s/ },
  {
    stage: 'body read and validation (Ajv)',
    url: /src\/http\/(read-input|json-body|text-values|request-contract)\.[jt]s|\/ajv\//,
  },
  {
    stage: 'body read and validation (Ajv)',
    name: /^(toArrayBuffer|readBodyWithFastPath|readBodyDirect|validateDirectReadMethod|consumeBodyDirectOnce|decodeUTF8)$/,
  },
  { stage: 'handler, cursor, page cache', url: /src\/server\/(operations|cursor)\.[jt]s|src\/store\// },
  { stage: 'answer: headers and JSON', url: /src\/http\/response-headers\.[jt]s/ },
  { stage: 'answer: headers and JSON', name: /^(answer|write|json)$/, url: /src\/http\/contract-app\.[jt]s|hono\/dist\/context\.js/ },
  { stage: 'response write (adapter, Node, socket)', url: /@hono\/node-server|node:_http_outgoing|node:net|stream_base_commons/ },
  { stage: 'response write (adapter, Node, socket)', name: /^(writev|writeBuffer|writeUtf8String|writeLatin1String)$/ },
  { stage: 'request parse (Node)', url: /node:_http_(server|common|incoming)/ },
  { stage: 'request parse (Node)', name: /^(parserOnHeadersComplete|parserOnBody|parserOnMessageComplete|execute)$/ },
  { stage: 'router, context, compose (Hono)', url: /\/hono\/dist\// },
  { stage: 'listener (caps, timeouts, outside answers)', url: /src\/http\/(listener|outside-answers|client-address)\.[jt]s/ },
  { stage: 'seam and app glue', url: /src\/(server\/(app|main)|http\/(bind-operations|contract-app))\.[jt]s|bench\/servers\// },
  { stage: 'promise and tick queues', name: /^(runMicrotasks|processTicksAndRejections|processPromiseRejections)$/ },
  { stage: 'timers', url: /node:internal\/timers/ },
  { stage: 'events and streams (Node)', url: /node:events|node:internal\/streams/ },
];

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
  const stages = stageTimes(profile, byId, selfUs, busyUs);
  return { totalMs: totalUs / 1000, busyMs: busyUs / 1000, functions: top(functions), modules: top(modules), inclusive: top(inclusive), stages: top(stages) };
}

/** Busy time by `STAGES`, each sample given to the nearest frame above it that a stage claims. */
function stageTimes(profile: CpuProfile, byId: Map<number, ProfileNode>, selfUs: Map<number, number>, busyUs: number): Map<string, SelfTime> {
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const stageOf = (id: number): string | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (!frame) continue;
      const name = frame.functionName || '(anonymous)';
      const url = shortUrl(frame.url);
      const rule = STAGES.find((rule) => (!rule.url || rule.url.test(url)) && (!rule.name || rule.name.test(name)) && (rule.url || rule.name));
      if (rule) return rule.stage;
    }
    return undefined;
  };
  const totals = new Map<string, SelfTime>();
  for (const [id, us] of selfUs) {
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    const stage = stageOf(id) ?? 'other (Node internals, events, streams)';
    const entry = totals.get(stage) ?? { name: stage, where: '', selfMs: 0, share: 0 };
    entry.selfMs += us / 1000;
    entry.share = (entry.selfMs * 1000) / busyUs;
    totals.set(stage, entry);
  }
  return totals;
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

/** The file relative to the project, and the build's `dist/src/...` read as `src/...`, so a compiled profile reads like a source one. */
function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith(projectRoot) ? relative(projectRoot, path).replace(/^dist\/(?=src\/|tools\/)/, '') : path;
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
