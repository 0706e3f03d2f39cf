// The "bare Fastify" ceiling: Fastify 5 answering one fixed JSON body (BARE_BODY) to every request,
// on a plain node:http server as Gatehouse serves it. Prints its port on stdout once listening.
import { createServer } from 'node:http';
import Fastify from 'fastify';

const body = process.env.BARE_BODY ?? '{"status":"ok"}';
let handler;
const app = Fastify({
  logger: false,
  serverFactory: (listener) => {
    handler = listener;
    return createServer();
  },
});
app.get('/*', (_request, reply) => {
  reply.header('content-type', 'application/json; charset=utf-8').send(body);
});
await app.ready();
const server = createServer(handler);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
