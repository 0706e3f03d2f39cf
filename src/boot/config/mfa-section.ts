import { z } from 'zod';
import { ALL_USER_LEVELS, isUserLevel, type UserLevel } from '../../domain/user/user.js';
import { commaList, int } from './variables.js';

/** Second factors and passkeys (contract 3b and section 7). */
export const mfaVariables = z.object({
  MFA_REQUIRED_LEVELS: commaList.default([]),
  MFA_PENDING_TTL_S: int(30, 3600).default(300),
  WEBAUTHN_RP_ID: z
    .string()
    .regex(/^[a-z0-9.-]+$/, 'must be a lower-case host name, without scheme or port')
    .optional(),
  WEBAUTHN_RP_NAME: z.string().min(1).max(64).default('Gatehouse'),
});

export interface MfaConfig {
  mfa: {
    /** User levels whose password users must have a second factor. */
    requiredLevels: readonly UserLevel[];
    /** Life of a session waiting for its second factor (or its enrolment). */
    pendingTtlS: number;
    /**
     * The WebAuthn relying party; `id` null when neither WEBAUTHN_RP_ID nor a TRUSTED_ORIGINS
     * entry gives one (WebAuthn then answers 409 MFA_NOT_CONFIGURED). `origins`: TRUSTED_ORIGINS.
     */
    webauthn: { rpId: string | null; rpName: string; origins: readonly string[] };
  };
}

/** A relying party id serves an origin whose host is that id or a subdomain of it (WebAuthn 5.1.2). */
function servesOrigin(rpId: string, origin: string): boolean {
  const host = new URL(origin).hostname;
  return host === rpId || host.endsWith(`.${rpId}`);
}

export function mfaSection(env: z.infer<typeof mfaVariables> & { TRUSTED_ORIGINS: readonly string[] }) {
  const problems: string[] = [];
  const levels: UserLevel[] = [];
  for (const entry of env.MFA_REQUIRED_LEVELS) {
    const level = Number(entry);
    if (/^\d+$/.test(entry) && isUserLevel(level)) levels.push(level);
    else problems.push(`MFA_REQUIRED_LEVELS: "${entry}" is not a user level (${ALL_USER_LEVELS.join(', ')})`);
  }
  const origins = env.TRUSTED_ORIGINS.map((origin) => new URL(origin).origin);
  const rpId = env.WEBAUTHN_RP_ID ?? (origins[0] ? new URL(origins[0]).hostname : null);
  if (
    env.WEBAUTHN_RP_ID &&
    origins.length > 0 &&
    !origins.some((origin) => servesOrigin(env.WEBAUTHN_RP_ID!, origin))
  ) {
    problems.push('WEBAUTHN_RP_ID: must be the host of a TRUSTED_ORIGINS entry or a parent domain of one');
  }
  return {
    problems,
    build: (): MfaConfig => ({
      mfa: {
        requiredLevels: [...new Set(levels)],
        pendingTtlS: env.MFA_PENDING_TTL_S,
        webauthn: { rpId, rpName: env.WEBAUTHN_RP_NAME, origins },
      },
    }),
  };
}
