import type { Context } from 'koa';
import type { ClientInfo } from '../../application/login-result.js';

export function clientInfo(ctx: Context): ClientInfo {
  return { clientAddress: ctx.ip || null, userAgent: ctx.get('User-Agent') || null };
}
