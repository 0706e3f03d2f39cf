/**
 * One HTTP/1.1 request exactly as given: any method, header names spelt and cased as written
 * (`Gatehouse_User_Level`), and headers fetch refuses to send (`Host`, `Connection`). For replaying
 * what a gateway sends, and for sending the forgeries a gateway must stop.
 */
import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, undefined when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: a test reads the answer field by field
  body: any;
}

export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Array<[string, string]> = [],
): Promise<RawAnswer> {
  const { hostname, port, host } = new URL(url);
  // Node adds no Host of its own to headers given as a list.
  const all: Array<[string, string]> = headers.some(([name]) => name.toLowerCase() === 'host')
    ? headers
    : [['Host', host], ...headers];
  return new Promise((resolve, reject) => {
    const outgoing = request({
      hostname,
      port,
      method,
      path,
      // An array keeps each name as written, repeated names included.
      headers: all.flat(),
      agent: false,
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
