// A trace collector that takes everything: answers each OTLP/HTTP export 200 with an empty
// ExportTraceServiceResponse and keeps count of the exports and their bytes (GET /stats), so the
// traced service's cost is its own, not a collector's. Prints its port on stdout once listening.
import { createServer } from 'node:http';

let exports = 0;
let bytes = 0;
const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/stats') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ exports, bytes }));
    return;
  }
  request.on('data', (chunk) => {
    bytes += chunk.length;
  });
  request.on('end', () => {
    exports++;
    response.writeHead(200, { 'content-type': 'application/x-protobuf' });
    response.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
