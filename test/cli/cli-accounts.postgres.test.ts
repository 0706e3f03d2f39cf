import { accountsSuite } from './cli-accounts.suite.js';

accountsSuite('postgres');
