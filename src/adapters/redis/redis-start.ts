import { connectRedis, type RedisClient, type RedisConnectionSettings } from './redis-connection.js';
import { checkEvictionPolicy } from './redis-eviction-policy.js';

/** How long start-up waits for Redis before it stops with a message naming the variable. */
function startTimeoutMs(commandTimeoutMs: number): number {
  return Math.max(5 * commandTimeoutMs, 1000);
}

/** Start-up stops: Redis did not answer. The message names the variable to check. */
export class RedisUnreachableError extends Error {
  constructor(variable: string, waitedMs: number, cause: unknown) {
    super(
      `${variable}: Redis did not answer within ${waitedMs / 1000} s ` +
        `(${cause instanceof Error ? cause.message : String(cause)}). Check the address, credentials and TLS.`,
      { cause },
    );
    this.name = 'RedisUnreachableError';
  }
}

export interface RedisStartOptions {
  /** The setting that points at this Redis (REDIS_URL or REDIS_CLUSTER_NODES), named in every refusal. */
  variable: string;
  /** Told when the eviction policy could not be read (CONFIG disabled); start-up goes on. */
  warn?: (message: string) => void;
}

/**
 * Connects to the server or cluster and waits until it answers, so a wrong address stops start-up
 * with a clear message instead of a service that answers 503 forever; then refuses a Redis that
 * evicts keys. Once started, a lost connection is retried in the background (503 meanwhile, no
 * restart). On any refusal the connection is dropped, so nothing keeps retrying behind it.
 */
export async function openRedis(
  settings: RedisConnectionSettings,
  options: RedisStartOptions,
): Promise<RedisClient> {
  const client = connectRedis(settings);
  // ioredis reports connection errors as events too; they are answered per command (503). The
  // last one says why start-up could not connect (refused, wrong password, TLS).
  let connectionError: unknown = null;
  client.on('error', (error) => {
    connectionError = error;
  });
  const timeoutMs = startTimeoutMs(settings.commandTimeoutMs);
  try {
    await waitUntilReady(client, timeoutMs, () => connectionError);
  } catch (error) {
    client.disconnect();
    throw new RedisUnreachableError(options.variable, timeoutMs, error);
  }
  try {
    const unchecked = await checkEvictionPolicy(client, options.variable);
    if (unchecked) options.warn?.(unchecked);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/** Errors that waiting will not cure: authentication and TLS. */
const WILL_NOT_PASS = /NOAUTH|WRONGPASS|invalid password|ERR AUTH|certificate|SSL|TLS/i;

/**
 * Pings until Redis answers (a cluster answers once its slots are known). Commands are not queued
 * while disconnected, so the first command must wait for this.
 */
async function waitUntilReady(
  client: RedisClient,
  timeoutMs: number,
  connectionError: () => unknown,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = new Error('no answer');
  while (Date.now() < deadline) {
    try {
      if ((await client.ping()) === 'PONG') return;
    } catch (error) {
      last = connectionError() ?? error;
      if (WILL_NOT_PASS.test(String(last))) throw last;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw connectionError() ?? last;
}
