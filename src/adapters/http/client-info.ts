import type { ClientInfo } from '../../application/login-result.js';
import type { HttpRequest } from './exchange.js';

export function clientInfo(request: HttpRequest): ClientInfo {
  return { clientAddress: request.clientAddress || null, userAgent: request.header('user-agent') || null };
}
