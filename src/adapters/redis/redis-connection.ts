import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** ioredis's client for one server or a cluster: the same command API. */
export type RedisClient = Redis | Cluster;

export interface RedisConnectionSettings {
  /** One server: `redis://[user:password@]host:port[/db]`, `rediss://` for TLS. */
  url?: string;
  /** A cluster's seed nodes, `host:port` (credentials and TLS from `clusterAuth`). */
  clusterNodes?: readonly string[];
  /** Credentials and TLS for a cluster's nodes (a seed URL's user, password and scheme). */
  clusterAuth?: { username?: string; password?: string; tls: boolean };
  /** Bound on any one command, so a stalled server answers 503 instead of hanging a request. */
  commandTimeoutMs: number;
  /** PEM certificates to trust for TLS (a private CA); the system's CAs otherwise. */
  tlsCa?: string;
}

/**
 * Options shared by both shapes. Commands are not queued while disconnected
 * (`enableOfflineQueue: false`): a request that cannot reach Redis fails at once (503) instead of
 * waiting for a reconnection that may take seconds; the connection itself reconnects in the
 * background, so the service recovers without a restart.
 *
 * No automatic pipelining: ioredis runs one automatic batch per node at a time, so behind a batch
 * stalled on a frozen node the next waits for the first's time-out before its own starts, and a
 * request took twice the command time-out. Sent one by one, every command gets the time-out from
 * its own sending (throughput measured the same either way, on one server and on a cluster).
 */
function commonOptions(settings: RedisConnectionSettings): RedisOptions {
  return {
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(settings.commandTimeoutMs, 1000),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (times) => Math.min(50 * times, 1000),
  };
}

export function connectRedis(settings: RedisConnectionSettings): RedisClient {
  if (settings.clusterNodes && settings.clusterNodes.length > 0) {
    const auth = settings.clusterAuth ?? { tls: false };
    return new Cluster(
      settings.clusterNodes.map((node) => {
        const [host, port] = splitHostPort(node);
        return { host, port };
      }),
      {
        // During a failover a slot has no master for a few seconds: commands are retried for
        // about that long (CLUSTERDOWN / TRYAGAIN / connection loss), then fail as 503.
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
        retryDelayOnTryAgain: 200,
        maxRedirections: 16,
        // While the client has no usable cluster (every node down, or reconnecting), a command
        // fails at once (503) instead of waiting in the client's queue, which has no time-out:
        // with the queue, a whole-cluster outage held every request until the cluster returned.
        // A failover keeps the client ready, so the retries above still cover it.
        enableOfflineQueue: false,
        // Reconnects for ever, at most a second apart: the service serves again by itself once a
        // node answers.
        clusterRetryStrategy: (times) => Math.min(100 * times, 1000),
        redisOptions: {
          ...commonOptions(settings),
          ...(auth.username ? { username: auth.username } : {}),
          ...(auth.password ? { password: auth.password } : {}),
          ...(auth.tls ? { tls: settings.tlsCa ? { ca: settings.tlsCa } : {} } : {}),
        },
      },
    );
  }
  if (!settings.url) throw new Error('connectRedis: neither a URL nor cluster nodes');
  const tls = settings.url.startsWith('rediss://')
    ? { tls: settings.tlsCa ? { ca: settings.tlsCa } : {} }
    : {};
  return new Redis(settings.url, {
    ...commonOptions(settings),
    ...tls,
    lazyConnect: false,
  });
}

function splitHostPort(node: string): [string, number] {
  const index = node.lastIndexOf(':');
  return [node.slice(0, index).replace(/^\[|\]$/g, ''), Number(node.slice(index + 1))];
}
