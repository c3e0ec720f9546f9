// standbyTasks: which tasks a process keeps standby replicas of, computed alike by every process from the group's description.

/** A member of the job's consumer group, as the group's description shows it. */
export interface GroupMember {
  /** The id the group coordinator gave the member (unique in the group). */
  readonly memberId: string;
  /** The tasks (task-topic partitions) the member was assigned. */
  readonly tasks: readonly number[];
}

/**
 * The tasks whose standby replicas the member `self` keeps, with `replicas` standbys per task: the members are
 * sorted by member id, and the standbys of the tasks owned by the member at index `i` are the members at
 * `i + 1, ..., i + replicas` (modulo the member count; at most count − 1 of them, the owner never its own standby).
 * So `self`, at index `j`, keeps the tasks of the members at `j − 1, ..., j − replicas`.
 *
 * Every process describes the same group and computes the same placement, so each task's standbys are on
 * `min(replicas, members − 1)` distinct processes without any coordination. A task that no member owns (the
 * description was taken between the two rounds of a cooperative rebalance) has no standby until the next
 * description. A member the description does not hold (it has not joined yet) keeps none.
 *
 * Cost: O(m log m + t) for m members and t tasks, once per description.
 *
 * @example
 * standbyTasks([{ memberId: 'a', tasks: [0, 1] }, { memberId: 'b', tasks: [2, 3] }], 'b', 1); // [0, 1]
 */
export function standbyTasks(members: readonly GroupMember[], self: string, replicas: number): number[] {
  const sorted = [...members].sort((a, b) =>
    a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0,
  );
  const at = sorted.findIndex((m) => m.memberId === self);
  if (at < 0 || replicas <= 0) return [];
  const own = new Set(sorted[at]!.tasks);
  const out = new Set<number>();
  const count = sorted.length;
  for (let d = 1; d <= Math.min(replicas, count - 1); d++)
    for (const task of sorted[(at - d + count) % count]!.tasks) if (!own.has(task)) out.add(task);
  return [...out].sort((a, b) => a - b);
}
