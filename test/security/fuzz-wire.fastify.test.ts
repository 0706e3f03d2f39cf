import { fuzzWireSuite } from './fuzz-wire.suite.js';

// The same properties with the API served by Fastify (HTTP_TRANSPORT=fastify).
fuzzWireSuite('fastify');
