import type { SessionSide } from '../../domain/session/session-side.port.js';
import type { Clock } from '../../domain/shared/clock.port.js';
import { MemorySessionStore } from './memory-session-store.js';
import { MemoryThrottleStore } from './memory-throttle-store.js';

/**
 * Sessions and throttling in this process (one process; nothing survives a restart). Expiry is
 * judged by the service's clock.
 */
export function memorySessionSide(clock: Clock): SessionSide {
  return {
    sessions: new MemorySessionStore(clock),
    throttle: new MemoryThrottleStore(),
    isReady: async () => true,
    close: async () => undefined,
  };
}
