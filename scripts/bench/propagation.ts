/**
 * How long a registry change takes to reach other instances. The change is written through the
 * registry adapter (what `gatehouse provider add | disable` calls) from this process; each
 * instance is then asked, every few milliseconds, until it answers as the change says:
 *
 * - add: a login naming the new provider's redirect URI (with a made-up code) is answered 400
 *   INVALID_REQUEST while the instance does not know the provider (no provider is called), and
 *   otherwise once it does (the code went to the provider, which refused it);
 * - disable: a session made through that provider on that instance is answered 200 until the
 *   instance sees the provider disabled, then 401 (its sessions end when next presented). Each
 *   instance gets a session of its own, because the first instance to end one deletes it for all.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { JSON_HEADERS, keepAliveAgent, request, sessionCookieFrom } from './load.js';
import { type BenchRegistry, BY_BENCH, realProviderSettings } from './registry.js';
import { type BenchProvider, changeRedirectUri, changeUser } from './sso.js';
import { type LatencySummary, round, Samples } from './stats.js';

export interface PropagationTarget {
  /** SSO_REGISTRY_POLL_MS of this instance. */
  pollMs: number;
  url: string;
}

export interface PropagationResult {
  poll_ms: number;
  /** Write committed -> this instance serves the added provider, per change (ms). */
  add_ms: number[];
  /** Write committed -> this instance ends the provider's session, per change (ms). */
  disable_ms: number[];
  add: LatencySummary;
  disable: LatencySummary;
  /** The answers that showed the change (add: the provider's refusal of a made-up code). */
  statuses_seen: Record<string, number>;
}

export interface PropagationReport {
  changes: number;
  /** How long each registry write took itself (its transaction), ms. */
  write_ms: LatencySummary;
  probe_interval_ms: number;
  instances: PropagationResult[];
}

const PROBE_INTERVAL_MS = 10;
const GIVE_UP_MS = 30_000;

/**
 * Asks `ask` every PROBE_INTERVAL_MS until `done(status)`. Returns when the first such question
 * was sent, in ms since `since` (not when its answer came: an added provider's first answer
 * includes its discovery), or null after GIVE_UP_MS.
 */
async function until(
  since: number,
  ask: () => Promise<number>,
  done: (status: number) => boolean,
  seen: Record<string, number>,
): Promise<number | null> {
  while (performance.now() - since < GIVE_UP_MS) {
    const sent = performance.now();
    const status = await ask();
    if (done(status)) {
      seen[status] = (seen[status] ?? 0) + 1;
      return sent - since;
    }
    await sleep(PROBE_INTERVAL_MS);
  }
  return null;
}

function probeLogin(agent: http.Agent, url: string, redirectUri: string): Promise<number> {
  return request(agent, url, {
    method: 'POST',
    path: '/api/v1/openid/login/',
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({
      nonce: 'bench-probe',
      authorization_code: 'bench-probe',
      redirect_uri: redirectUri,
    }),
  }).then((answer) => answer.status);
}

function probeSession(agent: http.Agent, url: string, cookie: string): Promise<number> {
  return request(agent, url, {
    method: 'GET',
    path: '/api/v1/session/',
    headers: { cookie: `sessionid=${cookie}`, accept: 'application/json' },
  }).then((answer) => answer.status);
}

async function ssoSession(
  agent: http.Agent,
  bench: BenchProvider,
  url: string,
  redirectUri: string,
  accountId: string,
) {
  const nonce = randomBytes(16).toString('base64url');
  const { code } = await bench.provider.issueCode({ accountId, nonce, redirectUri });
  const answer = await request(agent, url, {
    method: 'POST',
    path: '/api/v1/openid/login/',
    headers: { ...JSON_HEADERS },
    body: JSON.stringify({ nonce, authorization_code: code, redirect_uri: redirectUri }),
  });
  const cookie = sessionCookieFrom(answer.headers);
  if (answer.status !== 200 || !cookie)
    throw new Error(`login through the added provider: ${answer.status} ${answer.body}`);
  return cookie;
}

export async function propagationPhase(options: {
  bench: BenchProvider;
  writer: BenchRegistry;
  instances: PropagationTarget[];
  changes: number;
  /** SSO users of the login phases: the changes log in the users after them. */
  ssoUsers: number;
  log: (message: string) => void;
}): Promise<PropagationReport> {
  const { bench, writer, instances } = options;
  const agents = instances.map(() => keepAliveAgent(2));
  const writes = new Samples();
  const results = instances.map((instance) => ({
    poll_ms: instance.pollMs,
    add_ms: [] as number[],
    disable_ms: [] as number[],
    statuses_seen: {} as Record<string, number>,
  }));
  const measure = async (
    started: number,
    ask: (index: number) => Promise<number>,
    done: (status: number) => boolean,
    into: 'add_ms' | 'disable_ms',
  ) => {
    await Promise.all(
      instances.map(async (_, index) => {
        const result = results[index]!;
        const ms = await until(started, () => ask(index), done, result.statuses_seen);
        if (ms === null)
          throw new Error(
            `the change did not reach the instance polling every ${instances[index]!.pollMs} ms within ${GIVE_UP_MS} ms`,
          );
        result[into].push(round(ms));
      }),
    );
  };
  // Each write at a random moment of the slowest instance's poll cycle: written right after the
  // previous change was seen, it would fall just after a poll, every time the worst case.
  const longest = Math.max(...instances.map((instance) => instance.pollMs));
  const atRandomMoment = () => sleep(Math.random() * longest);
  try {
    for (let change = 0; change < options.changes; change++) {
      const id = `change-${change}`;
      const redirectUri = changeRedirectUri(change);
      const { settings, secrets } = realProviderSettings(bench, id, redirectUri);
      await atRandomMoment();
      let writeStarted = performance.now();
      const add = await writer.registry.add(settings, secrets, BY_BENCH());
      if (!add.ok) throw new Error(`add ${id}: ${JSON.stringify(add.refusal)}`);
      let committed = performance.now();
      writes.add(committed - writeStarted);
      await measure(
        committed,
        (index) => probeLogin(agents[index]!, instances[index]!.url, redirectUri),
        (status) => status !== 400,
        'add_ms',
      );
      const cookies = await Promise.all(
        instances.map((instance, index) =>
          ssoSession(
            agents[index]!,
            bench,
            instance.url,
            redirectUri,
            changeUser(options.ssoUsers, change, index),
          ),
        ),
      );
      await atRandomMoment();
      writeStarted = performance.now();
      const disable = await writer.registry.setEnabled(id, false, BY_BENCH());
      if (!disable.ok) throw new Error(`disable ${id}: ${JSON.stringify(disable.refusal)}`);
      committed = performance.now();
      writes.add(committed - writeStarted);
      await measure(
        committed,
        (index) => probeSession(agents[index]!, instances[index]!.url, cookies[index]!),
        (status) => status === 401,
        'disable_ms',
      );
      await writer.registry.remove(id, BY_BENCH());
      options.log(
        `  change ${change + 1}/${options.changes}: ` +
          results
            .map(
              (result) =>
                `poll ${result.poll_ms} ms: add ${result.add_ms.at(-1)} ms, disable ${result.disable_ms.at(-1)} ms`,
            )
            .join('; '),
      );
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  const summary = (values: number[]) => {
    const samples = new Samples();
    for (const value of values) samples.add(value);
    return samples.summary();
  };
  return {
    changes: options.changes,
    write_ms: writes.summary(),
    probe_interval_ms: PROBE_INTERVAL_MS,
    instances: results.map((result) => ({
      ...result,
      add: summary(result.add_ms),
      disable: summary(result.disable_ms),
    })),
  };
}
