/**
 * `npm ci` of a checkout on the oldest Node the project supports prints no engine warning but the
 * one docs/testing.md explains ("Node 20 and the engine warnings of `npm ci`"): every package the
 * lock installs admits that Node, StrykerJS included no longer (it lives in scripts/mutation-tools, with a
 * lock of its own, installed under Node 22 or later). Read from package-lock.json, whichever Node
 * runs this test.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

/** The lowest Node the project's `engines` admits (`^20.19.0 || ...`). */
const OLDEST = /^\^(\d+\.\d+\.\d+)/.exec(read('package.json').engines.node as string)?.[1] ?? '';

/** cookie@2 under Fastify's light-my-request (loaded only by `inject`): harmless, documented. */
const EXPLAINED = new Set(['node_modules/cookie']);

type Version = [number, number, number];

const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies one comparator of an engines range (`>=x`, `^x`, `~x`, `x.*`, `x`). */
function satisfiesOne(version: Version, comparator: string): boolean {
  const [, operator = '', raw = ''] = /^(>=|<=|>|<|=|\^|~)?\s*v?([\d.x*]+)$/.exec(comparator) ?? [];
  const parts = raw.split('.').filter((part) => part !== '' && part !== 'x' && part !== '*');
  const bound = parse(parts.join('.'));
  const order = compare(version, bound);
  switch (operator) {
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '<':
      return order < 0;
    case '^':
      return order >= 0 && version[0] === bound[0];
    case '~':
      return order >= 0 && version[0] === bound[0] && (parts.length < 2 || version[1] === bound[1]);
    default:
      // `20`, `20.x`, `=20.1.0`: every part written must match.
      return parts.every((_, i) => version[i] === bound[i]);
  }
}

function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => comparator === '' || satisfiesOne(v, comparator)),
  );
}

describe('the engines of what a checkout installs', () => {
  it('reads the oldest Node the project supports', () => {
    expect(OLDEST).toMatch(/^20\.\d+\.\d+$/);
    expect(satisfies(OLDEST, '^20.19.0 || ^22.12.0 || >=24')).toBe(true);
    expect(satisfies(OLDEST, '^22.18.0 || >=24.11.0')).toBe(false);
    expect(satisfies(OLDEST, '>= 12.*')).toBe(true);
    expect(satisfies(OLDEST, '>=22')).toBe(false);
  });

  it(`admits Node ${OLDEST} in every package of package-lock.json but the one explained`, () => {
    const packages: Record<string, { engines?: { node?: string } | string[] }> =
      read('package-lock.json').packages;
    const refusing = Object.entries(packages)
      .filter(([path, entry]) => {
        const node = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return path !== '' && node !== undefined && !satisfies(OLDEST, node);
      })
      .map(([path]) => path);
    expect(refusing.filter((path) => !EXPLAINED.has(path))).toEqual([]);
    // The explained one is still there: when Fastify drops it, so does docs/testing.md.
    expect(refusing).toEqual([...EXPLAINED]);
  });
});
