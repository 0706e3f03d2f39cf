import { importSuite } from './cli-import.suite.js';

importSuite('postgres');
