/**
 * The wire facts gatehouse-client shares with the service (src/client/wire.ts): the refusals its
 * middlewares answer with are the service's own answers for those codes, so an app sees the same
 * problem whether the embedded guard, the service or the client refused.
 */
import { describe, expect, it } from 'vitest';
import { STATUS_BY_CODE, TITLE_BY_CODE } from '../../src/adapters/http/problem.js';
import { GUARD_REFUSALS } from '../../src/client/wire.js';
import type { ErrorCode } from '../../src/domain/shared/domain-error.js';

describe("gatehouse-client's refusals", () => {
  for (const [kind, refusal] of Object.entries(GUARD_REFUSALS)) {
    it(`answers "${kind}" with the service's status and title for ${refusal.code}`, () => {
      const code: ErrorCode = refusal.code;
      expect(refusal.status).toBe(STATUS_BY_CODE[code]);
      expect(refusal.title).toBe(TITLE_BY_CODE[code]);
    });
  }
});
