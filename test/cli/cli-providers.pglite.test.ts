import { providersSuite } from './cli-providers.suite.js';

providersSuite('pglite');
