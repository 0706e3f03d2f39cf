/**
 * The QR code of an authenticator app's enrolment, drawn by the portal's server with `qrcode` (a dev
 * dependency: only the playground draws QR codes; Gatehouse answers the `otpauth_uri` and leaves the
 * drawing to the portal). An SVG string: the page inserts it as markup, which its Content Security
 * Policy allows, where a `data:` image would need `img-src data:`.
 */
import type { IncomingMessage } from 'node:http';
import QRCode from 'qrcode';

/** An otpauth URI with a long issuer and label stays well below this. */
const MAX_BODY_BYTES = 2048;

export type QrAnswer = { status: 200; svg: string } | { status: 400 | 413; message: string };

async function readBody(req: IncomingMessage): Promise<string | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `POST /portal/qr` with `{"otpauth_uri": "otpauth://totp/..."}`: the QR code as SVG. */
export async function otpauthQrCode(req: IncomingMessage): Promise<QrAnswer> {
  const text = await readBody(req);
  if (text === null) return { status: 413, message: 'The body is over 2 KiB.' };
  let uri: unknown;
  try {
    uri = (JSON.parse(text) as { otpauth_uri?: unknown }).otpauth_uri;
  } catch {
    return { status: 400, message: 'The body must be JSON.' };
  }
  // Only what Gatehouse's enrolment answers: nothing else is drawn.
  if (typeof uri !== 'string' || !uri.startsWith('otpauth://totp/')) {
    return { status: 400, message: 'otpauth_uri must be an otpauth://totp/ URI.' };
  }
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 200 });
  return { status: 200, svg };
}
