/** Latency recording and summaries for the benchmark (milliseconds, sub-millisecond resolution). */

export interface LatencySummary {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** A growable list of samples; percentiles by sorting once at the end. */
export class Samples {
  private values = new Float64Array(1024);
  private size = 0;

  add(value: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size++] = value;
  }

  get count(): number {
    return this.size;
  }

  summary(): LatencySummary {
    return summarize(this.values.subarray(0, this.size));
  }
}

export function summarize(input: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(input).sort();
  const n = sorted.length;
  if (n === 0) return { n: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  let total = 0;
  for (const value of sorted) total += value;
  // Nearest-rank percentile.
  const at = (p: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]!;
  return {
    n,
    mean: round(total / n),
    p50: round(at(50)),
    p90: round(at(90)),
    p99: round(at(99)),
    max: round(sorted[n - 1]!),
  };
}

/** The middle value (the upper one of an even count); 0 for none. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function ratio(
  numerator: number | null | undefined,
  denominator: number | null | undefined,
): number | null {
  if (!numerator || !denominator) return null;
  return round(numerator / denominator, 3);
}
