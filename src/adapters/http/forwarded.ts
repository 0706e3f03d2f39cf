import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/**
 * One reading of `X-Forwarded-For`, `-Proto` and `-Host` for every transport. Each proxy appends
 * what it saw to the right, so behind `hops` trusted proxies the entry `hops` places from the right
 * was written by the outermost trusted one (the edge); whatever stands further left came from the
 * client and proves nothing. With fewer entries, the leftmost (what a proxy that overwrites, as
 * nginx's `$scheme` recipes do, left behind). '' when the header is absent or that entry is empty.
 */
export function forwardedEntry(value: string, hops: number): string {
  if (value === '' || hops <= 0) return '';
  const entries = value.split(',');
  return (entries[Math.max(entries.length - hops, 0)] ?? '').trim();
}

/** What a request says of its client and of the origin it was sent to, behind `hops` proxies. */
export interface PeerView {
  /** The client's address: the socket's peer without trusted proxies. */
  clientAddress: string | null;
  /** `<protocol>://<host>` as the client's browser saw it (the Origin check). */
  ownOrigin: string;
}

export function peerView(request: IncomingMessage, hops: number): PeerView {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const socket = request.socket;
  const protocol =
    forwardedEntry(header('x-forwarded-proto'), hops).toLowerCase() ||
    ((socket as Partial<TLSSocket>).encrypted ? 'https' : 'http');
  const host = forwardedEntry(header('x-forwarded-host'), hops) || header('host');
  return {
    clientAddress: forwardedEntry(header('x-forwarded-for'), hops) || socket.remoteAddress || null,
    ownOrigin: `${protocol}://${host}`,
  };
}
