/**
 * Resource use of the service under test, read from Linux /proc: resident memory (sampled) and CPU
 * time (difference of utime + stime) of a process and all its descendants (the cluster workers in
 * WORKERS mode), plus the CPU time of the PostgreSQL server processes. Elsewhere the figures are null.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { round } from './stats.js';

const PROC = existsSync('/proc/self/stat');
let clockTicks: number | undefined;

function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

function readStat(pid: number): { comm: string; ppid: number; cpuTicks: number; systemTicks: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is parenthesised and may contain spaces: split after the last ')'.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // fields[0] is state (field 3); utime and stime are fields 14 and 15.
    return {
      comm,
      ppid: Number(fields[1]),
      cpuTicks: Number(fields[11]) + Number(fields[12]),
      systemTicks: Number(fields[12]),
    };
  } catch {
    return null;
  }
}

/** Resident set size in bytes (VmRSS), or null when the process is gone. */
export function rssBytes(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The process and its descendants. */
export function processTree(root: number): number[] {
  if (!PROC) return [];
  const childrenOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const list = childrenOf.get(stat.ppid) ?? [];
    list.push(Number(entry));
    childrenOf.set(stat.ppid, list);
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(childrenOf.get(pid) ?? []));
  }
  return tree;
}

function postgresPids(): number[] {
  if (!PROC) return [];
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && (stat.comm === 'postgres' || stat.comm === 'postmaster')) pids.push(Number(entry));
  }
  return pids;
}

function cpuTicksOf(pids: number[], kind: 'cpuTicks' | 'systemTicks' = 'cpuTicks'): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat) ticks.set(pid, stat[kind]);
  }
  return ticks;
}

export interface ResourceUse {
  /** Highest sampled total RSS of the service's processes, MiB. */
  rss_peak_mb: number | null;
  /** Highest sampled RSS of any one service process, MiB. */
  rss_peak_per_process_mb: number | null;
  /** Total RSS right after the phase, MiB. */
  rss_end_mb: number | null;
  /** CPU time of the service's processes over wall time, percent of one core. */
  cpu_pct: number | null;
  /** The kernel's part of cpu_pct (system calls: sockets). */
  cpu_system_pct: number | null;
  /** CPU time of all PostgreSQL server processes over wall time, percent of one core. */
  postgres_cpu_pct: number | null;
  /** CPU time of the benchmark process itself (load generator), percent of one core. */
  load_generator_cpu_pct: number;
  processes: number | null;
}

/** Samples RSS every `intervalMs` while a phase runs; CPU from the difference at start and stop. */
export class ResourceSampler {
  private timer: NodeJS.Timeout | undefined;
  private pids: number[] = [];
  private startTicks = new Map<number, number>();
  private startSystemTicks = new Map<number, number>();
  private pgStartTicks = new Map<number, number>();
  private startedAt = 0;
  private startCpu: NodeJS.CpuUsage = process.cpuUsage();
  private peakTotal = 0;
  private peakOne = 0;

  constructor(
    private readonly rootPid: number,
    private readonly intervalMs = 100,
  ) {}

  start(): void {
    this.startedAt = performance.now();
    this.startCpu = process.cpuUsage();
    if (!PROC) return;
    this.pids = processTree(this.rootPid);
    this.startTicks = cpuTicksOf(this.pids);
    this.startSystemTicks = cpuTicksOf(this.pids, 'systemTicks');
    this.pgStartTicks = cpuTicksOf(postgresPids());
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    let total = 0;
    for (const pid of this.pids) {
      const rss = rssBytes(pid) ?? 0;
      total += rss;
      if (rss > this.peakOne) this.peakOne = rss;
    }
    if (total > this.peakTotal) this.peakTotal = total;
  }

  stop(): ResourceUse {
    const wallS = (performance.now() - this.startedAt) / 1000;
    const cpu = process.cpuUsage(this.startCpu);
    const loadPct = round(((cpu.user + cpu.system) / 1e6 / wallS) * 100, 1);
    if (this.timer) clearInterval(this.timer);
    if (!PROC) {
      return {
        rss_peak_mb: null,
        rss_peak_per_process_mb: null,
        rss_end_mb: null,
        cpu_pct: null,
        cpu_system_pct: null,
        postgres_cpu_pct: null,
        load_generator_cpu_pct: loadPct,
        processes: null,
      };
    }
    this.sample();
    const ticks = ticksPerSecond();
    const delta = (before: Map<number, number>, kind: 'cpuTicks' | 'systemTicks' = 'cpuTicks') => {
      let sum = 0;
      for (const [pid, after] of cpuTicksOf([...before.keys()], kind)) sum += after - before.get(pid)!;
      return round((sum / ticks / wallS) * 100, 1);
    };
    let end = 0;
    for (const pid of this.pids) end += rssBytes(pid) ?? 0;
    const mb = (bytes: number) => round(bytes / 1048576, 1);
    return {
      rss_peak_mb: mb(this.peakTotal),
      rss_peak_per_process_mb: mb(this.peakOne),
      rss_end_mb: mb(end),
      cpu_pct: delta(this.startTicks),
      cpu_system_pct: delta(this.startSystemTicks, 'systemTicks'),
      postgres_cpu_pct: this.pgStartTicks.size > 0 ? delta(this.pgStartTicks) : null,
      load_generator_cpu_pct: loadPct,
      processes: this.pids.length,
    };
  }
}
