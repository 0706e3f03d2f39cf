/**
 * A TCP proxy between the service and PostgreSQL that a test controls, to simulate outages
 * without touching the shared database server:
 * - `cut()`: every open connection is reset and new ones are reset on arrival (PostgreSQL down);
 * - `pause()`: connections stay open but no byte is forwarded either way (a stalled database,
 *   a network black hole); new connections are accepted and stall too;
 * - `restore()`: back to normal; bytes held during a pause flow on.
 * `clientMessages(text)` counts what the client sent (held or forwarded), e.g. a ROLLBACK that a
 * stalled connection should not be asked for.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'open' | 'paused' | 'cut';

export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** Connections accepted since start. */
  readonly accepted: number;
  cut(): void;
  pause(): void;
  /**
   * Pauses as soon as a client sends a message containing `text` (held, like everything after);
   * resolves then.
   */
  pauseWhenClientSends(text: string): Promise<void>;
  /** Chunks containing `text` that clients have sent so far, held ones included. */
  clientMessages(text: string): number;
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  /** Bytes held while paused, per direction. */
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'open';
  let accepted = 0;
  let trigger: { text: Buffer; paused: () => void } | null = null;
  /** Everything clients sent (a test's database traffic is small). */
  const sent: Buffer[] = [];
  const pairs = new Set<Pair>();

  const reset = (socket: Socket) => {
    if (!socket.destroyed) socket.resetAndDestroy();
  };
  const flush = (pair: Pair) => {
    for (const chunk of pair.held.toUpstream.splice(0)) pair.upstream.write(chunk);
    for (const chunk of pair.held.toClient.splice(0)) pair.client.write(chunk);
  };

  const server: Server = createServer((client) => {
    accepted += 1;
    client.on('error', () => {});
    if (mode === 'cut') {
      reset(client);
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.on('error', () => {});
    const pair: Pair = { client, upstream, held: { toUpstream: [], toClient: [] } };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      reset(client);
      reset(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('data', (chunk: Buffer) => {
      sent.push(chunk);
      if (trigger && chunk.includes(trigger.text)) {
        const { paused } = trigger;
        trigger = null;
        mode = 'paused';
        paused();
      }
      if (mode === 'paused') pair.held.toUpstream.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'paused') pair.held.toClient.push(chunk);
      else client.write(chunk);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;

  return {
    port,
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    cut() {
      mode = 'cut';
      for (const pair of [...pairs]) {
        reset(pair.client);
        reset(pair.upstream);
      }
      pairs.clear();
    },
    pause() {
      mode = 'paused';
    },
    pauseWhenClientSends(text: string) {
      return new Promise<void>((paused) => {
        trigger = { text: Buffer.from(text), paused };
      });
    },
    clientMessages(text: string) {
      return sent.filter((chunk) => chunk.includes(text)).length;
    },
    restore() {
      mode = 'open';
      trigger = null;
      for (const pair of pairs) flush(pair);
    },
    close() {
      mode = 'cut';
      for (const pair of [...pairs]) {
        reset(pair.client);
        reset(pair.upstream);
      }
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
