import { readFileSync } from 'node:fs';

/** Resident set size of a process in bytes (VmRSS of /proc/<pid>/status); undefined off Linux or once it has ended. */
export function readRssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system, all threads) a process has used so far, in ms; undefined off Linux or once it has ended. */
export function readCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
