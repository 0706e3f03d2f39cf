import { describe, expect, it } from 'vitest';
import { forwardedEntry } from '../../src/adapters/http/forwarded.js';

describe('forwardedEntry: one reading of every X-Forwarded-* header', () => {
  it('takes the entry `hops` places from the right, trimmed', () => {
    expect(forwardedEntry('a, b ,c', 1)).toBe('c');
    expect(forwardedEntry('a, b ,c', 2)).toBe('b');
    expect(forwardedEntry('a, b ,c', 3)).toBe('a');
  });

  it('takes the leftmost with fewer entries (a proxy that overwrites)', () => {
    expect(forwardedEntry('https', 2)).toBe('https');
    expect(forwardedEntry('a, b', 5)).toBe('a');
  });

  it('believes nothing without trusted proxies, an absent header or an empty entry', () => {
    expect(forwardedEntry('a, b', 0)).toBe('');
    expect(forwardedEntry('', 1)).toBe('');
    expect(forwardedEntry('a, ', 1)).toBe('');
  });
});
