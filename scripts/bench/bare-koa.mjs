// The "bare Koa" ceiling: Koa 3 answering one fixed JSON body (BARE_BODY) to every request,
// on a plain node:http server. Prints its port on stdout once listening.
import { createServer } from 'node:http';
import Koa from 'koa';

const body = JSON.parse(process.env.BARE_BODY ?? '{"status":"ok"}');
const app = new Koa();
app.use((ctx) => {
  ctx.body = body;
});
const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
