import { auditSuite } from './cli-audit.suite.js';

auditSuite('postgres');
