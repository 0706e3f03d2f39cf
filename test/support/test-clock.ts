import type { Clock } from '../../src/domain/shared/clock.port.js';

/** A clock tests move by hand, so time-outs and expiry are tested without sleeping. */
export class TestClock implements Clock {
  private current: number;

  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  advanceSeconds(seconds: number): void {
    this.advance(seconds * 1000);
  }
}
