import { DomainError } from '../shared/domain-error.js';
import { canonicalUsername } from '../user/username.js';
import type { ThrottleReservation, ThrottleStore } from './throttle-store.port.js';

export interface ThrottleSettings {
  /** Attempts per account in a window that may fail (LOGIN_MAX_FAILURES). */
  maxFailures: number;
  windowS: number;
}

/** The keys one attempt counts against. */
export interface ThrottleKeys {
  /** The account's budget, or a recognised device's own budget for that account. */
  user: string;
  address: string | null;
}

/**
 * The places an attempt took in its budgets, to be settled once the password was checked:
 * `succeeded` gives them back, `failed` leaves them spent.
 */
export interface ThrottleTicket {
  readonly keys: ThrottleKeys;
  /** True when this attempt took the last place of a budget: a failure now blocks that key. */
  readonly lastPlace: boolean;
}

/** A budget and its limit of attempts per window. */
type Budget = [key: string, limit: number];

/** The store's answer when a budget is spent. */
type Refusal = Extract<ThrottleReservation, { granted: false }>;

function isRefusal(answer: ThrottleReservation): answer is Refusal {
  return !answer.granted;
}

/** True when an answer granted the last place of its budget: a failure now blocks that key. */
function tookLastPlace(budgets: readonly Budget[], answers: readonly ThrottleReservation[]): boolean {
  return answers.some((answer, index) => answer.granted && answer.used >= budgets[index]![1]);
}

/** A client address may fail this many times more than one account before it is slowed down. */
export const ADDRESS_FAILURE_FACTOR = 10;

function tooManyAttempts(retryAt: Date, now: Date): DomainError {
  const retryAfterS = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  return new DomainError('TOO_MANY_ATTEMPTS', 'Too many failed attempts. Try again later.', { retryAfterS });
}

/**
 * Anti-automation that cannot become a lockout for good (ASVS 6.3.1): each account, and more
 * loosely each client address, has a budget of attempts per window in the shared store. An
 * attempt reserves its place BEFORE the password is verified, so however many guesses arrive at
 * once, on however many instances, at most `maxFailures` per account are ever verified in a
 * window (the check-then-count design let a parallel burst through). A success gives its place
 * back and forgives the account's failures; a failure leaves it spent. Once a budget is spent,
 * the key waits for the end of the window that began with its first attempt.
 */
export class LoginThrottle {
  constructor(
    private readonly store: ThrottleStore,
    private readonly settings: ThrottleSettings,
  ) {}

  /**
   * The budgets of an attempt. With a recognised device (a browser that logged in as this user
   * before and carries its proof: `DeviceProofs`), the attempt counts against that device's own
   * budget instead of the account's, so guesses from elsewhere that blocked the account do not lock
   * the real user out, and a stolen proof buys no more than one device's budget. Its success
   * forgives that device only: the account's block stays for the others.
   */
  static keys(username: string, clientAddress: string | null, deviceId: string | null = null): ThrottleKeys {
    return {
      user: deviceId ? `device:${deviceId}` : `user:${canonicalUsername(username)}`,
      address: clientAddress ? `addr:${clientAddress}` : null,
    };
  }

  /**
   * The budgets of a login's second step (contract 3b): the account's own budget for second
   * factors, apart from its password budget, so that a right password (which forgives the
   * password's failures) never buys more guesses at the factor; only a right factor forgives these.
   * The address budget is the logins' one: a client guessing codes is a client guessing.
   */
  static secondFactorKeys(userId: string, clientAddress: string | null): ThrottleKeys {
    return { user: `mfa:${userId}`, address: clientAddress ? `addr:${clientAddress}` : null };
  }

  private budgets(keys: ThrottleKeys): Budget[] {
    const budgets: Budget[] = [[keys.user, this.settings.maxFailures]];
    if (keys.address) budgets.push([keys.address, this.settings.maxFailures * ADDRESS_FAILURE_FACTOR]);
    return budgets;
  }

  /**
   * Takes a place in every budget of the attempt, or none: throws TOO_MANY_ATTEMPTS (with the
   * seconds to wait) when one is spent, after giving back the places already taken.
   */
  async reserve(keys: ThrottleKeys, now: Date): Promise<ThrottleTicket> {
    const budgets = this.budgets(keys);
    const answers = await this.answers(budgets, now);
    await this.refuseIfSpent(budgets, answers, now);
    return { keys, lastPlace: tookLastPlace(budgets, answers) };
  }

  /**
   * The store's answer for each budget, in their order: in one operation where the store can
   * (`capabilities.reserveEach`), else one budget after the other.
   */
  private answers(budgets: readonly Budget[], now: Date): Promise<ThrottleReservation[]> {
    const each = this.store.capabilities.reserveEach;
    if (each && budgets.length > 1) {
      return each.reserveEach(
        budgets.map(([key, limit]) => ({ key, limit })),
        now,
        this.settings.windowS,
      );
    }
    return this.answersInTurn(budgets, now);
  }

  /**
   * One budget after the other, up to the first refusal: the budgets after it are not asked, so
   * nothing is taken from them (the answers end with that refusal).
   */
  private async answersInTurn(budgets: readonly Budget[], now: Date): Promise<ThrottleReservation[]> {
    const answers: ThrottleReservation[] = [];
    for (const [key, limit] of budgets) {
      const answer = await this.store.reserve(key, limit, now, this.settings.windowS);
      answers.push(answer);
      if (isRefusal(answer)) break;
    }
    return answers;
  }

  /**
   * When a budget refused the attempt, gives back the places the others granted (all or none)
   * and throws TOO_MANY_ATTEMPTS with that refusal's wait.
   */
  private async refuseIfSpent(
    budgets: readonly Budget[],
    answers: readonly ThrottleReservation[],
    now: Date,
  ): Promise<void> {
    const refusal = answers.find(isRefusal);
    if (!refusal) return;
    const taken = budgets.filter((_, index) => answers[index]?.granted).map(([key]) => key);
    await Promise.all(taken.map((place) => this.store.release(place)));
    throw tooManyAttempts(refusal.retryAt, now);
  }

  /**
   * The attempt failed: its places stay spent. Says whether that failure blocked a key (it took
   * the last place of a budget), which the audit trail records as `login_throttled`.
   */
  failed(ticket: ThrottleTicket): { blocked: boolean } {
    return { blocked: ticket.lastPlace };
  }

  /**
   * The attempt succeeded: the account's failures are forgiven (its key is reset), and the
   * address gets its place back (a success is not a guess).
   */
  async succeeded(ticket: ThrottleTicket, store: ThrottleStore = this.store): Promise<void> {
    const { user, address } = ticket.keys;
    if (address && store.capabilities.settle) return store.capabilities.settle.resetAndRelease(user, address);
    await store.reset(user);
    if (address) await store.release(address);
  }
}
