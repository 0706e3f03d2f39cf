import { fuzzBodiesSuite } from './fuzz-bodies.suite.js';

// The same properties with the API served by Fastify (HTTP_TRANSPORT=fastify).
fuzzBodiesSuite('fastify');
