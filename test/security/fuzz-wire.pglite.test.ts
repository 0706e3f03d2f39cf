import { fuzzWireSuite } from './fuzz-wire.suite.js';

fuzzWireSuite('pglite');
