/**
 * The replicas connected to a node, as its `INFO replication` answer counts them; 0 when the
 * answer names none (a proxy or a managed Redis may leave the line out).
 */
export function connectedReplicasIn(info: string): number {
  return Number(/connected_slaves:(\d+)/.exec(info)?.[1] ?? 0);
}
