import { describe, expect, it } from 'vitest';
import { type OriginFacts, originRefusal } from '../../src/adapters/http/origin-check.js';

const OWN = 'https://gatehouse.example';
const TRUSTED = new Set(['https://portal.example']);

/** A request as the check reads it: absent headers read as ''. */
function request(method: string, headers: Record<string, string> = {}): OriginFacts {
  return { method, ownOrigin: OWN, header: (name: string) => headers[name] ?? '' };
}

function refusal(method: string, headers: Record<string, string> = {}) {
  const error = originRefusal(request(method, headers), TRUSTED);
  return error && { code: error.code, message: error.message };
}

const OTHER_ORIGIN = { code: 'ORIGIN_REJECTED', message: 'Requests from this origin are not accepted.' };
const CROSS_SITE = { code: 'ORIGIN_REJECTED', message: 'Cross-site requests are not accepted.' };

describe('originRefusal', () => {
  it('lets the safe methods through whatever they carry', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(refusal(method, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).toBeNull();
    }
  });

  it('refuses a state-changing request from another origin, by the Origin', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(refusal(method, { origin: 'https://evil.example' })).toEqual(OTHER_ORIGIN);
    }
    // Even when the browser calls it same-site: the Origin decides.
    expect(refusal('POST', { origin: 'https://evil.example', 'sec-fetch-site': 'same-site' })).toEqual(
      OTHER_ORIGIN,
    );
  });

  it('accepts its own origin and the trusted ones, even cross-site', () => {
    expect(refusal('POST', { origin: OWN })).toBeNull();
    expect(refusal('POST', { origin: 'https://portal.example', 'sec-fetch-site': 'cross-site' })).toBeNull();
    expect(refusal('POST', { origin: OWN, 'sec-fetch-site': 'cross-site' })).toBeNull();
  });

  it('refuses a cross-site request without an Origin, whatever the case of Sec-Fetch-Site', () => {
    expect(refusal('POST', { 'sec-fetch-site': 'cross-site' })).toEqual(CROSS_SITE);
    expect(refusal('POST', { 'sec-fetch-site': 'Cross-Site' })).toEqual(CROSS_SITE);
  });

  it('lets through a request without Origin that is not cross-site (a non-browser client)', () => {
    expect(refusal('POST')).toBeNull();
    expect(refusal('POST', { 'sec-fetch-site': 'same-origin' })).toBeNull();
    expect(refusal('POST', { 'sec-fetch-site': 'none' })).toBeNull();
  });
});
