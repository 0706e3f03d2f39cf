import { DomainError } from '../shared/domain-error.js';
import type { ThrottleStore } from './throttle-store.port.js';

export interface AddressThrottleSettings {
  /** Failed attempts one client address may make per window. */
  limit: number;
  windowS: number;
}

/** The place an attempt took; `succeeded` gives it back. */
export interface AddressTicket {
  readonly key: string;
}

/**
 * A budget of failed attempts per client address for an operation that has no account to count
 * against until it succeeds: an SSO login, where junk authorization codes would otherwise each cost
 * a call to the customer's provider and could get this service rate-limited there; a back-channel
 * logout, where each forged token costs signature checks. Like the login throttle, a place is taken
 * before the work and given back on success, so a parallel burst cannot exceed the budget.
 */
export class AddressThrottle {
  constructor(
    private readonly store: ThrottleStore,
    private readonly operation: string,
    private readonly settings: AddressThrottleSettings,
    /** Told each attempt refused (metrics); nothing when not given. */
    private readonly onRefused: () => void = () => {},
  ) {}

  /**
   * Null when the address is unknown (nothing to count against). `scope` splits the address's
   * budget (an SSO login's provider): failures within one scope never spend another's, so one
   * customer's provider outage does not throttle another customer's users behind the same address.
   */
  async reserve(clientAddress: string | null, now: Date, scope?: string): Promise<AddressTicket | null> {
    if (!clientAddress) return null;
    const key =
      scope === undefined
        ? `${this.operation}-addr:${clientAddress}`
        : `${this.operation}-addr:${scope}:${clientAddress}`;
    const reservation = await this.store.reserve(key, this.settings.limit, now, this.settings.windowS);
    if (!reservation.granted) {
      this.onRefused();
      const retryAfterS = Math.max(1, Math.ceil((reservation.retryAt.getTime() - now.getTime()) / 1000));
      throw new DomainError('TOO_MANY_ATTEMPTS', 'Too many failed attempts. Try again later.', {
        retryAfterS,
      });
    }
    return { key };
  }

  async succeeded(ticket: AddressTicket | null): Promise<void> {
    if (ticket) await this.store.release(ticket.key);
  }
}
