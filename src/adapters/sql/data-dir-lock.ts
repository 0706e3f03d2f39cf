import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lock file, in DATA_DIR itself (a folder private to the service's user). */
export const LOCK_FILE = 'gatehouse.lock';

/** What the lock file records about the process holding DATA_DIR. */
interface Holder {
  pid: number;
  /** The process's start time as the kernel counts it (Linux), so a reused pid is told apart. */
  started: string | null;
  role: 'the Gatehouse service' | 'a gatehouse command';
  /** The script the process runs (its arguments are left out: they may name files or users). */
  command: string;
  since: string;
  token: string;
}

/** Start-up stops: another process has the embedded database open. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: Pick<Holder, 'pid' | 'role' | 'command' | 'since'>,
    /** Why the holder could not be asked instead (the service's administration socket). */
    unanswered?: string,
  ) {
    const stop = holder.role === 'the Gatehouse service' ? 'Stop the service' : 'Let that command finish';
    super(
      `DATA_DIR ${dir} is held by ${holder.role} (pid ${holder.pid}, ${holder.command}, since ${holder.since})` +
        `${unanswered ? `, which ${unanswered}` : ''}. ` +
        'The embedded database serves one process at a time: a second one would write where the ' +
        `first never reads, and could lose its writes. ${stop}, then run this again; or move the ` +
        'database to PostgreSQL (DATABASE_URL), which the service and the gatehouse command can ' +
        `share. If no Gatehouse process uses DATA_DIR any more, remove ${join(dir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** Lock files this process holds, by path: a second open in the same process is refused too. */
const heldHere = new Map<string, Holder>();

/**
 * Whether this process is the `gatehouse` command (only for the holder's description in the
 * message another process shows; `gatehouse serve` runs the service's own entry).
 */
function ownRole(): Holder['role'] {
  const entry = process.argv[1] ?? '';
  return /[\\/]cli[\\/]main\.[cm]?[jt]s$|[\\/]gatehouse(\.js)?$/.test(entry)
    ? 'a gatehouse command'
    : 'the Gatehouse service';
}

/** The start time of process `pid` in clock ticks since boot (Linux `/proc`), or null elsewhere. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3; the start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the recorded holder still runs. A dead pid, or one now used by another process (its
 * start time differs), is a stale lock: the holder crashed or was killed. Without `/proc`, a
 * recorded pid equal to this process's or its parent's is stale too, as PostgreSQL reads its
 * postmaster.pid: in a container started again, the service gets the pid its predecessor had.
 */
function holderRuns(holder: Holder): boolean {
  const started = startTimeOf(holder.pid);
  if (started !== null) return holder.started === null || started === holder.started;
  if (holder.pid === process.pid || holder.pid === process.ppid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): Holder | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    return Number.isInteger(holder.pid) && typeof holder.token === 'string' ? (holder as Holder) : null;
  } catch {
    return null;
  }
}

/**
 * Who holds `dir` now: the recorded holder if its process still runs, otherwise null (no lock,
 * or a stale one). Only a look: the holder may let go the next moment, so a caller that finds
 * none still takes the lock (`DataDirLock.take`) before opening anything.
 */
export function currentHolder(dir: string): Pick<Holder, 'pid' | 'role' | 'command' | 'since'> | null {
  const holder = readHolder(join(dir, LOCK_FILE));
  return holder && holderRuns(holder) ? holder : null;
}

/**
 * An exclusive hold on the embedded database's folder for this process, as PostgreSQL's
 * postmaster.pid is (PGlite's own records a fixed pid, so it tells nothing). The lock file is
 * written complete under another name and hard-linked into place, which fails if one exists: no
 * process ever reads a half-written lock. One left by a process that no longer runs is replaced.
 */
export class DataDirLock {
  private constructor(
    private readonly path: string,
    private readonly token: string,
  ) {}

  static take(dir: string): DataDirLock {
    const path = join(dir, LOCK_FILE);
    const mine = heldHere.get(path);
    if (mine) throw new DataDirInUseError(dir, mine);
    const holder: Holder = {
      pid: process.pid,
      started: startTimeOf(process.pid),
      role: ownRole(),
      command: process.argv[1] ?? process.argv0,
      since: new Date().toISOString(),
      token: randomUUID(),
    };
    const draft = `${path}.${holder.token}`;
    writeFileSync(draft, JSON.stringify(holder), { mode: 0o600 });
    try {
      for (let attempt = 0; attempt < 10; attempt++) {
        try {
          linkSync(draft, path);
          heldHere.set(path, holder);
          return new DataDirLock(path, holder.token);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        const current = readHolder(path);
        if (current && holderRuns(current)) throw new DataDirInUseError(dir, current);
        // Stale (or unreadable, or just released): remove it and try again.
        removeIfPresent(path);
      }
      throw new Error(`DATA_DIR ${dir}: could not take ${LOCK_FILE} (it keeps changing hands)`);
    } finally {
      removeIfPresent(draft);
    }
  }

  /** Gives DATA_DIR up; the lock file goes only if it is still this one. */
  release(): void {
    if (heldHere.get(this.path)?.token !== this.token) return;
    heldHere.delete(this.path);
    if (readHolder(this.path)?.token === this.token) removeIfPresent(this.path);
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
