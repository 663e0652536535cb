/**
 * Signals to a process or to the group it leads. A process launched in its own group (see
 * `launch`) takes its children with it: npm and the shell under it, tsx's inner node, Prism.
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Sends `signal` to `pid`, or with `group` to every process in the group `pid` leads; false when
 * there was nothing to signal. Signal 0 sends nothing and only checks.
 */
export function sendSignal(pid: number, signal: NodeJS.Signals | 0, options: { group: boolean }): boolean {
  try {
    process.kill(options.group ? -pid : pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while the process runs or, with `group`, while any process of the group it led does. A
 * killed process that its parent has not reaped yet (a zombie) does not count: where /proc exists
 * it is read, since the kernel still accepts signals for a zombie.
 */
export function isRunning(pid: number, options: { group: boolean } = { group: false }): boolean {
  if (!sendSignal(pid, 0, options)) return false;
  const stats = procStats();
  if (stats === undefined) return true;
  return stats.some((stat) => stat.state !== 'Z' && (options.group ? stat.group === pid : stat.pid === pid));
}

/** State and process group of every process, from /proc/<pid>/stat; undefined off Linux. */
function procStats(): Array<{ pid: number; state: string; group: number }> | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  return entries.flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command name, which may hold spaces and parentheses: state, ppid, pgrp, ...
      const [state = '', , group = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ pid: Number(name), state, group: Number(group) }];
    } catch {
      return [];
    }
  });
}

/** Resolves once no process of the group `pid` led is left running, or after `timeoutMs`. */
export async function groupGone(pid: number, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isRunning(pid, { group: true }) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

/**
 * Groups whose leader still runs when this process exits (a test that failed before its
 * `afterAll`, a CLI that threw): killed then, so nothing outlives the run. One listener for all.
 */
const killOnExit = new Set<number>();
process.once('exit', () => {
  for (const pid of killOnExit) sendSignal(pid, 'SIGKILL', { group: true });
});

/** Kills the group `pid` leads if this process exits first; call `release(pid)` once it has ended. */
export function killGroupOnExit(pid: number): void {
  killOnExit.add(pid);
}

export function release(pid: number): void {
  killOnExit.delete(pid);
}
