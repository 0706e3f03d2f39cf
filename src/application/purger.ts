import type { Clock } from '../domain/shared/clock.port.js';
import type { Store } from '../domain/store.port.js';

export interface PurgeSettings {
  /** Seconds between cycles (PURGE_INTERVAL_S); 0 turns the periodic purge off. */
  intervalS: number;
  /** Rows one DELETE removes at most (PURGE_BATCH_SIZE): short statements, short locks. */
  batchSize: number;
  /** DELETEs per table and cycle, so a cycle stays bounded however far behind the purge is. */
  maxBatchesPerCycle: number;
  /** Sessions idle this long are dead (SESSION_IDLE_TIMEOUT_S); past `expires_at` they are too. */
  idleTimeoutS: number;
  /** Throttling rows untouched for the failure window no longer count (LOGIN_FAILURE_WINDOW_S). */
  throttleWindowS: number;
  /** Audit events older than this many days go (AUDIT_RETENTION_DAYS); 0 keeps them for ever. */
  auditRetentionDays: number;
}

export interface PurgeCounts {
  sessions: number;
  throttle: number;
  audit: number;
  logoutTokens: number;
  /** WebAuthn challenges past their 5 minutes that no verification took. */
  webauthnChallenges: number;
}

const DAY_MS = 86_400_000;

/**
 * Deletes what the store no longer needs: sessions past their idle or absolute time-out (they are
 * refused already; this only reclaims the rows), stale throttling counters and audit events past
 * their retention, the records of logout tokens that could no longer be accepted, and WebAuthn
 * challenges past their time. In bounded batches, on a timer that never keeps the process alive. Every
 * instance runs one; concurrent purges on one PostgreSQL are harmless (a row deleted by one is
 * skipped by the other).
 */
export class Purger {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<PurgeCounts> | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: PurgeSettings,
    private readonly report: {
      purged?: (counts: PurgeCounts) => void;
      failed?: (error: unknown) => void;
    } = {},
  ) {}

  /** One cycle; a call while a cycle runs joins that cycle instead of starting another. */
  runOnce(): Promise<PurgeCounts> {
    this.running ??= this.cycle().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Starts the periodic purge (first cycle after one interval). */
  start(): void {
    if (this.settings.intervalS <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      this.runOnce().then(
        (counts) => this.report.purged?.(counts),
        (error: unknown) => this.report.failed?.(error),
      );
    }, this.settings.intervalS * 1000);
    this.timer.unref();
  }

  /** Stops the timer and waits for a cycle under way, so the store can be closed after. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private async cycle(): Promise<PurgeCounts> {
    const now = this.clock.now();
    const { idleTimeoutS, throttleWindowS, auditRetentionDays } = this.settings;
    // A store that forgets by itself declares no purge: nothing to do for it here.
    const sessionPurge = this.store.sessions.capabilities.purge;
    const sessions = sessionPurge
      ? await this.drain((limit) => sessionPurge.purgeExpired(now, idleTimeoutS, limit))
      : 0;
    const throttleCutoff = new Date(now.getTime() - throttleWindowS * 1000);
    const throttlePurge = this.store.throttle.capabilities.purge;
    const throttle = throttlePurge
      ? await this.drain((limit) => throttlePurge.purgeOlderThan(throttleCutoff, limit))
      : 0;
    const auditCutoff = new Date(now.getTime() - auditRetentionDays * DAY_MS);
    const audit =
      auditRetentionDays > 0
        ? await this.drain((limit) => this.store.audit.purgeOlderThan(auditCutoff, limit))
        : 0;
    const logoutTokens = await this.drain((limit) => this.store.logoutTokens.purgeExpired(now, limit));
    const webauthnChallenges = await this.drain((limit) =>
      this.store.mfa.purgeExpiredWebAuthnChallenges(now, limit),
    );
    return { sessions, throttle, audit, logoutTokens, webauthnChallenges };
  }

  /** Batches of `batchSize` until one comes back short or the cycle's bound is reached. */
  private async drain(purge: (limit: number) => Promise<number>): Promise<number> {
    const { batchSize, maxBatchesPerCycle } = this.settings;
    let total = 0;
    for (let batch = 0; batch < maxBatchesPerCycle; batch++) {
      const deleted = await purge(batchSize);
      total += deleted;
      if (deleted < batchSize) break;
    }
    return total;
  }
}
