import { adminSuite } from './cli-admin.suite.js';

adminSuite('pglite');
