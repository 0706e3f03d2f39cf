/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_CPU_PROF=dir npm run bench):
 * self time by package/file and the heaviest functions.
 * Usage: npx tsx scripts/bench/profile-summary.ts FILE.cpuprofile [top] [last-seconds]
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

/** `lastS`: only the samples of the profile's last seconds (e.g. the phase before the service stopped). */
export function summariseProfile(profile: Profile, top = 25, lastS = Number.POSITIVE_INFINITY): string {
  const selfUs = new Map<number, number>();
  const from = profile.endTime - lastS * 1e6;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from) continue;
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
      'usage: tsx scripts/bench/profile-summary.ts FILE.cpuprofile [top] [last-seconds]\n',
    );
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const top = Number(process.argv[3] ?? 25);
  const lastS = process.argv[4] ? Number(process.argv[4]) : Number.POSITIVE_INFINITY;
  process.stdout.write(`${summariseProfile(profile, top, lastS)}\n`);
}
