/**
 * Keeps an instance's provider directory in step with the registry: every interval it asks the
 * registry's version (one primary-key read) and reloads only when it moved. Polling rather than
 * LISTEN/NOTIFY: it needs nothing but a query, so it works the same on PGlite, PostgreSQL behind a
 * transaction-mode pooler, and any store a team writes; docs/architecture.md says why.
 */
export class RegistryWatch {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly directory: { refresh(): Promise<boolean> },
    private readonly intervalMs: number,
    /** A failed reload keeps the providers as they were; the caller logs why. */
    private readonly failed: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.timer || this.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      // A slow reload is not overlapped by the next tick.
      this.running ??= this.directory
        .refresh()
        .catch(this.failed)
        .finally(() => {
          this.running = null;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a reload under way, so the store can be closed after. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
