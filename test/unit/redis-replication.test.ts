import { describe, expect, it } from 'vitest';
import { connectedReplicasIn } from '../../src/adapters/redis/redis-replication.js';

// The lines are those of a real `INFO replication` answer (Redis 7).
const MASTER_WITH = (replicas: number) =>
  [
    '# Replication',
    'role:master',
    `connected_slaves:${replicas}`,
    'slave0:ip=127.0.0.1,port=7001,state=online,offset=1234,lag=0',
    'master_failover_state:no-failover',
  ].join('\r\n');

describe('the replicas an INFO replication answer counts', () => {
  it('reads the connected_slaves line', () => {
    expect(connectedReplicasIn(MASTER_WITH(0))).toBe(0);
    expect(connectedReplicasIn(MASTER_WITH(1))).toBe(1);
  });

  it('reads every digit of a count of ten or more', () => {
    expect(connectedReplicasIn(MASTER_WITH(12))).toBe(12);
  });

  it('counts none when the answer leaves the line out', () => {
    expect(connectedReplicasIn('# Replication\r\nrole:master\r\n')).toBe(0);
    expect(connectedReplicasIn('')).toBe(0);
  });
});
