import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { dieWithTestProcess } from './reaper.js';
import { ephemeralRedisArgs, freePort, probeRedis } from './redis-server.js';

const run = promisify(execFile);

/** A real Redis Cluster of 3 masters and 3 replicas on loopback ports, nothing on disk. */
export interface TestCluster {
  /** `host:port` of every node (REDIS_CLUSTER_NODES). */
  nodes: string[];
  /** A cluster client for the test itself. */
  client: Cluster;
  /** The node currently master for this key's slot. */
  masterOf(key: string): Promise<{ port: number; pid: number }>;
  /** The replica of the master on `port`. */
  replicaOf(masterPort: number): Promise<{ port: number; pid: number }>;
  /** Sends a signal to one node: SIGSTOP freezes it (it neither answers nor replicates), SIGCONT resumes it. */
  signal(port: number, signal: NodeJS.Signals): void;
  /** SIGKILL one node (a crash). */
  kill(port: number): Promise<void>;
  /** Starts a killed node again on its port, as the same cluster node, with no keys. */
  restart(port: number): Promise<void>;
  /** Waits until the node on `port` has been promoted to master (a failover completed). */
  waitPromoted(port: number, timeoutMs?: number): Promise<void>;
  /** Waits until every slot has a master again (cluster_state:ok seen from a live node). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const ping = (port: number) =>
  probeRedis(
    port,
    async (probe) => (await probe.ping()) === 'PONG',
    () => false,
  );

/** True once this node is a master with a replica in sync, or a replica whose link to its master is up. */
const replicationReady = (port: number) =>
  probeRedis(
    port,
    async (probe) => {
      const info = await probe.info('replication');
      if (/role:master/.test(info))
        return /connected_slaves:[1-9]/.test(info) && /slave0:.*state=online/.test(info);
      return /master_link_status:up/.test(info);
    },
    () => false,
  );

const clusterState = (port: number) =>
  probeRedis(
    port,
    async (probe) => {
      const info = (await probe.call('CLUSTER', 'INFO')) as string;
      return /cluster_state:(\w+)/.exec(info)?.[1] ?? null;
    },
    () => null,
  );

/** Starts six `redis-server --cluster-enabled yes` and joins them with `redis-cli --cluster create`. */
export async function startTestCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'gh-cluster-'));
  const ports: number[] = [];
  // The cluster bus listens on port + 10000: keep both below the top of the range and distinct.
  const newPort = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (port < 55_000 && !ports.includes(port)) return port;
    }
  };
  while (ports.length < 6) ports.push(await newPort());
  const children = new Map<number, ChildProcess>();
  // The node's cluster configuration (its id, role and slots) stays in `dir`, so a node started
  // again on its port rejoins the cluster as itself (its keys are gone: nothing else is on disk).
  const startNode = (port: number) => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '2000',
        '--cluster-replica-validity-factor',
        '0',
        ...ephemeralRedisArgs(dir),
      ],
      { stdio: 'ignore' },
    );
    children.set(port, dieWithTestProcess(child));
  };
  const killNode = async (port: number) => {
    const child = children.get(port);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  };
  const waitAnswering = async (port: number) => {
    const deadline = Date.now() + 10_000;
    while (!(await ping(port))) {
      const child = children.get(port);
      const exited = child !== undefined && (child.exitCode !== null || child.signalCode !== null);
      if (exited || Date.now() > deadline) throw new Error(`cluster node ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  for (const port of ports) startNode(port);
  // A port found free can be taken before the node binds it (or its bus port, + 10000, can be in
  // use already: an outgoing connection's local port, another suite's server): that node alone
  // starts again on another port.
  for (let index = 0; index < ports.length; index++) {
    for (let attempt = 1; ; attempt++) {
      try {
        await waitAnswering(ports[index]!);
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await killNode(ports[index]!);
        children.delete(ports[index]!);
        ports[index] = await newPort();
        startNode(ports[index]!);
      }
    }
  }
  const nodes = ports.map((port) => `127.0.0.1:${port}`);
  await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '1', '--cluster-yes']);

  const waitHealthy = async (timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const live = [...children.entries()].filter(
        ([, child]) => child.exitCode === null && child.signalCode === null,
      );
      const states = await Promise.all(live.map(([port]) => clusterState(port)));
      if (states.length > 0 && states.every((state) => state === 'ok')) {
        // Before the first WAIT can be answered, every replica must be in sync.
        if (live.length < 6) return;
        const synced = await Promise.all(live.map(([port]) => replicationReady(port)));
        if (synced.every(Boolean)) return;
      }
      if (Date.now() > deadline) throw new Error(`cluster not healthy: ${states.join(',')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await waitHealthy();

  const client = new Cluster(
    ports.map((port) => ({ host: '127.0.0.1', port })),
    {
      redisOptions: { maxRetriesPerRequest: 3 },
      retryDelayOnClusterDown: 200,
      retryDelayOnFailover: 200,
    },
  );
  client.on('error', () => undefined);

  return {
    nodes,
    client,
    masterOf: async (key) => {
      const slot = Number(await client.call('CLUSTER', 'KEYSLOT', key));
      const slots = (await client.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      const range = slots.find(([from, to]) => slot >= from && slot <= to)!;
      const port = range[2][1];
      return { port, pid: children.get(port)!.pid! };
    },
    replicaOf: async (masterPort) => {
      for (const [port, child] of children) {
        if (port === masterPort || child.exitCode !== null || child.signalCode !== null) continue;
        const replicates = await probeRedis(
          port,
          async (probe) => new RegExp(`master_port:${masterPort}\\b`).test(await probe.info('replication')),
          () => false,
        );
        if (replicates) return { port, pid: child.pid! };
      }
      throw new Error(`no replica of ${masterPort}`);
    },
    waitPromoted: async (port, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const promoted = await probeRedis(
          port,
          async (probe) => /role:master/.test(await probe.info('replication')),
          () => false,
        );
        if (promoted) return;
        if (Date.now() > deadline) throw new Error(`node ${port} was not promoted`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    signal: (port, signal) => {
      children.get(port)?.kill(signal);
    },
    kill: killNode,
    restart: async (port) => {
      const child = children.get(port);
      if (child && child.exitCode === null && child.signalCode === null)
        throw new Error(`cluster node ${port} is still running`);
      startNode(port);
      await waitAnswering(port);
    },
    waitHealthy,
    close: async () => {
      client.disconnect();
      await Promise.all([...children.keys()].map(killNode));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
