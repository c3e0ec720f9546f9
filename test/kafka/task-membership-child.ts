// A task group member in a process of its own, for the test that kills one: prints what it is assigned and revoked.
import { TaskMembership } from '../../src/connectors/kafka/task-membership.ts';

const [bootstrap, jobId, taskCount, sessionTimeoutMs, heartbeatIntervalMs] = process.argv.slice(2);
await TaskMembership.join({
  bootstrapServers: bootstrap!,
  jobId: jobId!,
  taskCount: Number(taskCount),
  sessionTimeoutMs: Number(sessionTimeoutMs),
  heartbeatIntervalMs: Number(heartbeatIntervalMs),
  clientId: 'killed-member',
  listener: {
    onAssigned: (tasks) => void process.stdout.write(`ASSIGNED ${tasks.join(',')}\n`),
    onRevoked: (tasks, lost) => void process.stdout.write(`REVOKED ${tasks.join(',')} ${lost}\n`),
  },
  onError: (error) => void process.stdout.write(`ERROR ${error.message}\n`),
});
process.stdout.write('JOINED\n');
// It runs until the test SIGKILLs it: it never leaves the group.
