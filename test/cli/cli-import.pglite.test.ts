import { importSuite } from './cli-import.suite.js';

importSuite('pglite');
