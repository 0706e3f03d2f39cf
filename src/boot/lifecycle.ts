/**
 * Start-up and shutdown work as one ordered list of steps, so the service, the `gatehouse serve`
 * process and an embedder's `createGatehouse` start and stop the same way: a step starts after
 * the one before it, and the steps started stop in the reverse order (the store, opened first,
 * closes last).
 */
export interface LifecycleStep {
  /** What the step does, for a reader and for the error of a failed start. */
  readonly name: string;
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

export class Lifecycle {
  private started: LifecycleStep[] = [];
  private stopping: Promise<void> | null = null;

  constructor(readonly steps: readonly LifecycleStep[]) {}

  /** Runs each step's start in order; on a failure, stops what had started, then rethrows. */
  async start(): Promise<void> {
    for (const step of this.steps) {
      try {
        await step.start?.();
      } catch (error) {
        this.started.push(step);
        await this.stop().catch(() => undefined);
        throw error;
      }
      this.started.push(step);
    }
  }

  /** Stops the started steps, last started first; calling it again waits for the same stop. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const failures: unknown[] = [];
      for (const step of this.started.reverse()) {
        try {
          await step.stop?.();
        } catch (error) {
          failures.push(error);
        }
      }
      this.started = [];
      if (failures.length > 0) throw failures[0];
    })();
    return this.stopping;
  }
}
