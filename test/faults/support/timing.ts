/** Small timing helpers of the fault tests. */

export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: Math.round(performance.now() - started) };
}

/** Polls `check` every `intervalMs` until it returns true; resolves with the time it took. */
export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {},
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return Math.round(performance.now() - started);
    if (performance.now() - started > timeoutMs)
      throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Prints a measured figure in the test output (docs/security.md quotes them). */
export function report(figure: string): void {
  process.stdout.write(`[faults] ${figure}\n`);
}
