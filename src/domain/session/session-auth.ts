/**
 * What a session may do (contract 3b): everything (`full`), or only finish its login: verify a
 * second factor (`second_factor`), or, for a user whose level requires one and who has none,
 * enrol one (`enrolment`). A session that is not `full` never counts as logged in anywhere.
 */
export type SessionStage = 'full' | 'second_factor' | 'enrolment';

/**
 * How and when a session was made (contract 3b "step-up"). `amr` holds RFC 8176 method
 * references: `pwd`, `otp`, `hwk`, `recovery`, `mfa` (a passkey login with user verification is
 * multi-factor by itself; an SSO token whose `acr` was in the provider's `--acr-values`), `sso`
 * plus the provider's own `amr`. `authTime` is when the user last proved who they are.
 */
export interface SessionAuth {
  stage: SessionStage;
  amr: readonly string[];
  authTime: Date;
}

/** The provider `amr` values that vouch for a second factor (contract 3b). */
export const SSO_SECOND_FACTOR_AMR: readonly string[] = ['mfa', 'otp', 'hwk', 'swk', 'sc', 'fpt', 'face'];

/** Second factors of our own, beside `pwd`. */
const OWN_SECOND_FACTOR_AMR: readonly string[] = ['otp', 'hwk', 'recovery'];

/**
 * The facts of a session as the service acts on them. `pendingToken` is what the cookie value
 * itself says (a pending session's token carries a marker, `isPendingSessionToken`), so the
 * answer fails closed: a store that lost the stage, or the whole record of facts, can never turn
 * a pending session into a full one; the pending kind, when lost, is the narrower second factor.
 * A session stored before second factors existed has no facts: it is what its login method says
 * (`pwd` or `sso`), made when it was created.
 */
export function sessionAuthOf(
  session: { auth?: SessionAuth; method: 'password' | 'sso'; createdAt: Date },
  pendingToken: boolean,
): SessionAuth {
  const stored = session.auth;
  const stage: SessionStage = pendingToken
    ? stored?.stage === 'enrolment'
      ? 'enrolment'
      : 'second_factor'
    : stored && stored.stage !== 'full'
      ? // A full token whose record says pending: the record is not trusted to widen anything.
        stored.stage
      : 'full';
  const amr = stored?.amr ?? [session.method === 'sso' ? 'sso' : 'pwd'];
  const authTime = stored?.authTime ?? session.createdAt;
  return { stage, amr, authTime };
}

/**
 * Whether the session was made with two factors: a password and one of ours, a passkey login with
 * user verification (`mfa`), or an SSO login whose token vouched for a second factor.
 */
export function madeWithTwoFactors(auth: Pick<SessionAuth, 'amr'>): boolean {
  const { amr } = auth;
  if (amr.includes('mfa')) return true;
  if (amr.includes('pwd') && !amr.includes('sso'))
    return amr.some((method) => OWN_SECOND_FACTOR_AMR.includes(method));
  if (amr.includes('sso')) return amr.some((method) => SSO_SECOND_FACTOR_AMR.includes(method));
  return false;
}

/** What a route or a guard asks of a session beyond being live (contract 3b "step-up"). */
export interface StepUp {
  /** The session was made with two factors (`madeWithTwoFactors`). */
  requireMfa?: boolean;
  /** The user proved who they are at most this many seconds ago. */
  maxAuthAgeS?: number;
}

export type StepUpRefusal = 'MFA_REQUIRED' | 'REAUTHENTICATION_REQUIRED';

/** Why the session does not meet the step-up, or null when it does. */
export function stepUpRefusal(auth: SessionAuth, stepUp: StepUp, now: Date): StepUpRefusal | null {
  if (stepUp.requireMfa && !madeWithTwoFactors(auth)) return 'MFA_REQUIRED';
  if (
    stepUp.maxAuthAgeS !== undefined &&
    now.getTime() - auth.authTime.getTime() > stepUp.maxAuthAgeS * 1000
  ) {
    return 'REAUTHENTICATION_REQUIRED';
  }
  return null;
}

/** `auth_time` and `Gatehouse-Auth-Time`: Unix seconds. */
export function authTimeSeconds(auth: Pick<SessionAuth, 'authTime'>): number {
  return Math.floor(auth.authTime.getTime() / 1000);
}
