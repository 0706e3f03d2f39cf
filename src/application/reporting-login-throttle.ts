import {
  LoginThrottle,
  type ThrottleKeys,
  type ThrottleSettings,
  type ThrottleTicket,
} from '../domain/login/login-throttle.js';
import type { ThrottleStore } from '../domain/login/throttle-store.port.js';
import { isDomainError } from '../domain/shared/domain-error.js';

/**
 * The login throttle, reporting every attempt it refuses (TOO_MANY_ATTEMPTS) to `onRefused`.
 * The use cases ask the throttle first; one instance per use case tells which operation was
 * refused, without the use cases knowing about the report (it feeds `LoginEvents.loginThrottled`).
 */
export class ReportingLoginThrottle extends LoginThrottle {
  constructor(
    store: ThrottleStore,
    settings: ThrottleSettings,
    private readonly onRefused: () => void,
  ) {
    super(store, settings);
  }

  override async reserve(keys: ThrottleKeys, now: Date): Promise<ThrottleTicket> {
    try {
      return await super.reserve(keys, now);
    } catch (error) {
      if (isDomainError(error) && error.code === 'TOO_MANY_ATTEMPTS') this.onRefused();
      throw error;
    }
  }
}
