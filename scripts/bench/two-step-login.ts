/**
 * The two-step login of a TOTP user (POST /api/v1/login/ then POST /api/v1/mfa/verify/) against the
 * one-step login of users without a factor, in the same service, interleaved round by round so
 * both see the same machine (issue 28: the two-step login stays argon2-bound, >= 0.9x).
 *
 * The TOTP users are imported like the others and enrolled through the API (login, then
 * POST /api/v1/mfa/totp/ and its confirm/): the bench writes nothing into the store behind the
 * service's back. A code is accepted once per 30-s step per factor, so each login takes the next
 * unused step of a user (the current one, or the next, which the window of one step allows) and a
 * user whose both are spent waits: `waits` counts those (their time counts against the two-step
 * rate, and the floor is not judged then); enough users keep it at zero. The server's resource use
 * of this phase includes the enrolment.
 */
import type http from 'node:http';
import { Secret, TOTP } from 'otpauth';
import {
  JSON_HEADERS,
  keepAliveAgent,
  type LoadRequest,
  pooled,
  request,
  sessionCookieFrom,
} from './load.js';
import { ResourceSampler } from './proc.js';
import { BENCH_PASSWORD, passwordUser, totpUser } from './seed.js';
import { type LatencySummary, ratio, round, Samples } from './stats.js';

const PERIOD_S = 30;
const step = () => Math.floor(Date.now() / 1000 / PERIOD_S);
const codeAt = (secret: Secret, counter: number) =>
  TOTP.generate({
    secret,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_S,
    timestamp: counter * PERIOD_S * 1000,
  });

interface Enrolled {
  username: string;
  secret: Secret;
  /** The last step whose code the service accepted. */
  lastStep: number;
}

export interface LoginRate {
  logins: number;
  errors: number;
  logins_per_s: number;
  latency_ms: LatencySummary;
  /**
   * CPU time of the whole machine's part in it (service, PostgreSQL, load generator) per login,
   * ms, and those parts' use of the cores while it ran (200 = both of 2 cores busy): a rate
   * below its neighbour's at equal CPU per login is a load that did not keep the machine busy.
   */
  machine_cpu_ms_per_login: number | null;
  machine_cpu_pct: number | null;
}

export interface TwoStepLoginReport {
  totp_users: number;
  enrol_s: number;
  connections: number;
  rounds: number;
  one_step: LoginRate;
  two_step: LoginRate & { waits: number };
  two_step_vs_one_step: number | null;
  /** One-step machine CPU per login over the two-step's: the ratio a CPU-bound machine would show. */
  cpu_two_step_vs_one_step: number | null;
  /** Issue 28: the second step costs next to nothing beside argon2 (null when a lane waited). */
  floor: number;
  at_least_floor: boolean | null;
}

function post(path: string, body: object, cookie?: string): LoadRequest {
  return {
    method: 'POST',
    path,
    headers: { ...JSON_HEADERS, ...(cookie ? { cookie: `sessionid=${cookie}` } : {}) },
    body: JSON.stringify(body),
  };
}

async function login(agent: http.Agent, baseUrl: string, username: string): Promise<string> {
  const answer = await request(
    agent,
    baseUrl,
    post('/api/v1/login/', { username, password: BENCH_PASSWORD }),
  );
  const cookie = sessionCookieFrom(answer.headers);
  if (answer.status !== 200 || !cookie)
    throw new Error(`login of ${username}: ${answer.status} ${answer.body}`);
  return cookie;
}

async function enrol(agent: http.Agent, baseUrl: string, username: string): Promise<Enrolled> {
  const cookie = await login(agent, baseUrl, username);
  const started = await request(
    agent,
    baseUrl,
    post('/api/v1/mfa/totp/', { password: BENCH_PASSWORD }, cookie),
  );
  if (started.status !== 200)
    throw new Error(`TOTP enrolment of ${username}: ${started.status} ${started.body}`);
  const secret = Secret.fromBase32((JSON.parse(started.body) as { secret: string }).secret);
  const now = step();
  const confirmed = await request(
    agent,
    baseUrl,
    post('/api/v1/mfa/totp/confirm/', { totp: codeAt(secret, now) }, cookie),
  );
  if (confirmed.status !== 200)
    throw new Error(`TOTP confirm of ${username}: ${confirmed.status} ${confirmed.body}`);
  return { username, secret, lastStep: now };
}

class Rate {
  readonly latencies = new Samples();
  logins = 0;
  errors = 0;
  elapsedMs = 0;
  /** Machine CPU seconds while this variant ran (null where /proc cannot tell). */
  cpuS: number | null = 0;
  summary(): LoginRate {
    const cpuMs = this.cpuS === null ? null : this.cpuS * 1000;
    return {
      logins: this.logins,
      errors: this.errors,
      logins_per_s: round(this.logins / (this.elapsedMs / 1000), 1),
      latency_ms: this.latencies.summary(),
      machine_cpu_ms_per_login: cpuMs === null || this.logins === 0 ? null : round(cpuMs / this.logins, 2),
      machine_cpu_pct: cpuMs === null ? null : round((cpuMs / this.elapsedMs) * 100, 1),
    };
  }
}

/** `connections` lanes doing `one()` until the time is up, added to `rate`. */
async function drive(
  rate: Rate,
  serverPid: number | undefined,
  connections: number,
  durationMs: number,
  one: () => Promise<boolean>,
) {
  const sampler = serverPid === undefined ? null : new ResourceSampler(serverPid, 1000);
  sampler?.start();
  const started = performance.now();
  const until = started + durationMs;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const begun = performance.now();
        if (await one()) {
          rate.logins++;
          rate.latencies.add(performance.now() - begun);
        } else rate.errors++;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  rate.elapsedMs += elapsedMs;
  const use = sampler?.stop();
  if (!use || use.cpu_pct === null || use.postgres_cpu_pct === null || rate.cpuS === null) rate.cpuS = null;
  else
    rate.cpuS +=
      ((use.cpu_pct + use.postgres_cpu_pct + use.load_generator_cpu_pct) / 100) * (elapsedMs / 1000);
}

export async function twoStepLogin(options: {
  baseUrl: string;
  /** The service's process, whose CPU (and PostgreSQL's) each variant's figure counts. */
  serverPid?: number;
  totpUsers: number;
  passwordUsers: number;
  connections: number;
  durationS: number;
  rounds: number;
}): Promise<TwoStepLoginReport> {
  const agent = keepAliveAgent(options.connections);
  try {
    const enrolStarted = performance.now();
    const users = await pooled(options.totpUsers, options.connections, (index) =>
      enrol(agent, options.baseUrl, totpUser(index)),
    );
    const enrolS = round((performance.now() - enrolStarted) / 1000);
    const oneStep = new Rate();
    const twoStep = new Rate();
    let waits = 0;
    let nextPassword = 0;
    let nextTotp = 0;
    // The next user whose next step is usable now (no more than one step ahead), or null.
    const takeTotpUser = (): { user: Enrolled; counter: number } | null => {
      const now = step();
      for (let tried = 0; tried < users.length; tried++) {
        const user = users[nextTotp++ % users.length]!;
        const counter = Math.max(user.lastStep + 1, now);
        if (counter <= now + 1) {
          user.lastStep = counter;
          return { user, counter };
        }
      }
      return null;
    };
    const sliceMs = (options.durationS * 1000) / options.rounds;
    for (let round = 0; round < options.rounds; round++) {
      await drive(oneStep, options.serverPid, options.connections, sliceMs, async () => {
        const username = passwordUser(nextPassword++ % options.passwordUsers);
        const answer = await request(
          agent,
          options.baseUrl,
          post('/api/v1/login/', { username, password: BENCH_PASSWORD }),
        );
        return answer.status === 200;
      });
      await drive(twoStep, options.serverPid, options.connections, sliceMs, async () => {
        const taken = takeTotpUser();
        if (!taken) {
          waits++;
          await new Promise((resolve) => setTimeout(resolve, 100));
          return false;
        }
        const first = await request(
          agent,
          options.baseUrl,
          post('/api/v1/login/', { username: taken.user.username, password: BENCH_PASSWORD }),
        );
        const pending = sessionCookieFrom(first.headers);
        if (first.status !== 200 || !pending) return false;
        const second = await request(
          agent,
          options.baseUrl,
          post('/api/v1/mfa/verify/', { totp: codeAt(taken.user.secret, taken.counter) }, pending),
        );
        return second.status === 200;
      });
    }
    const two = twoStep.summary();
    const one = oneStep.summary();
    const share = ratio(two.logins_per_s, one.logins_per_s);
    const cpuShare =
      one.machine_cpu_ms_per_login && two.machine_cpu_ms_per_login
        ? ratio(one.machine_cpu_ms_per_login, two.machine_cpu_ms_per_login)
        : null;
    return {
      totp_users: users.length,
      enrol_s: enrolS,
      connections: options.connections,
      rounds: options.rounds,
      one_step: one,
      two_step: { ...two, errors: two.errors - waits, waits },
      two_step_vs_one_step: share,
      cpu_two_step_vs_one_step: cpuShare,
      floor: 0.9,
      // A lane that waited for a usable code measured the shortage of users, not the login: no verdict.
      at_least_floor: share === null || waits > 0 ? null : share >= 0.9,
    };
  } finally {
    agent.destroy();
  }
}
