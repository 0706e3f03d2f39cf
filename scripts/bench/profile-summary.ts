/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_CPU_PROF=dir npm run bench):
 * self time by package/file and the heaviest functions.
 * Usage: npx tsx scripts/bench/profile-summary.ts FILE.cpuprofile [top] [last-seconds | from:to]
 * (`from:to`: seconds after the profile's start, e.g. `3:18` for the session phases of a short run).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function area(url: string): string {
  if (!url) return '(native/idle/gc)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/dist/src/');
  return src === -1 ? url : url.slice(src + 1);
}

/** A window of the profile in seconds after its start; `{ lastS }` counts back from its end. */
export type ProfileWindow = { fromS: number; toS: number } | { lastS: number };

/** Self time inside `window` (default: the whole profile), by area and by function. */
export function summariseProfile(
  profile: Profile,
  top = 25,
  window: ProfileWindow = { lastS: Number.POSITIVE_INFINITY },
): string {
  const selfUs = new Map<number, number>();
  const from =
    'lastS' in window ? profile.endTime - window.lastS * 1e6 : profile.startTime + window.fromS * 1e6;
  const to = 'lastS' in window ? profile.endTime : profile.startTime + window.toS * 1e6;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((sum, value) => sum + value, 0);
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const key = url ? `${name} ${area(url)}:${lineNumber + 1}` : name;
    byArea.set(area(url), (byArea.get(area(url)) ?? 0) + us);
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  const lines = [`total sampled ${(total / 1e6).toFixed(2)} s`, '', 'self time by area:'];
  for (const [name, us] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, top))
    lines.push(`${pct(us)}  ${name}`);
  lines.push('', 'self time by function:');
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(`${pct(us)}  ${name}`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write(
      'usage: tsx scripts/bench/profile-summary.ts FILE.cpuprofile [top] [last-seconds | from:to]\n',
    );
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const top = Number(process.argv[3] ?? 25);
  const raw = process.argv[4];
  const [fromS, toS] = (raw ?? '').split(':').map(Number);
  const window: ProfileWindow =
    raw?.includes(':') && fromS !== undefined && toS !== undefined
      ? { fromS, toS }
      : { lastS: raw ? Number(raw) : Number.POSITIVE_INFINITY };
  process.stdout.write(`${summariseProfile(profile, top, window)}\n`);
}
