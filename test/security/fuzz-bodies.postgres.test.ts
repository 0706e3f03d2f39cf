import { fuzzBodiesSuite } from './fuzz-bodies.suite.js';

fuzzBodiesSuite('postgres');
