// Job views: the JSON the REST API returns for a job, its vertices, checkpoints and exceptions (Flink's shapes).
import { createHash } from 'node:crypto';
import type { StreamNode } from '../graph/stream-graph.ts';
import type { CheckpointStats } from '../execution/checkpoint-stats-tracker.ts';
import type { ExceptionEntry, RunningJob } from '../execution/running-job.ts';
import type { SubtaskFigures } from '../runtime/subtask-figures.ts';
import { displayRecord, type RecordDisplay } from '../core/record-display.ts';

export type { RecordDisplay } from '../core/record-display.ts';

/** A vertex id: 32 hex digits derived from the operator's uid, stable across runs (as Flink's operator ids). */
export function vertexId(node: StreamNode): string {
  return createHash('md5').update(node.uid).digest('hex');
}

/** Subtask status as Flink's ExecutionState. */
function subtaskStatus(job: RunningJob, subtask: SubtaskFigures): string {
  if (job.status === 'FAILED') return 'FAILED';
  if (job.status === 'CANCELED') return 'CANCELED';
  if (subtask.finished || job.status === 'FINISHED') return 'FINISHED';
  if (job.status === 'INITIALIZING') return 'DEPLOYING';
  if (job.status === 'RESTARTING') return 'CANCELING';
  return 'RUNNING';
}

/** The figures of a node's subtasks on every thread of the current attempt (worker threads' as of their last tick). */
export function subtasksOf(job: RunningJob, node: StreamNode): SubtaskFigures[] {
  return job.attempt?.subtaskFigures(node) ?? [];
}

function vertexStatus(job: RunningJob, node: StreamNode): string {
  const statuses = subtasksOf(job, node).map((s) => subtaskStatus(job, s));
  if (statuses.length === 0) return job.status === 'INITIALIZING' ? 'CREATED' : job.status;
  if (statuses.every((s) => s === 'FINISHED')) return 'FINISHED';
  return statuses.find((s) => s !== 'FINISHED') ?? 'RUNNING';
}

/** `GET /jobs/overview` entry. */
export function jobOverview(job: RunningJob, now: number): Record<string, unknown> {
  const tasks: Record<string, number> = { total: 0, running: 0, finished: 0, canceled: 0, failed: 0 };
  for (const node of job.graph.nodes) {
    for (const subtask of subtasksOf(job, node)) {
      tasks.total!++;
      const status = subtaskStatus(job, subtask).toLowerCase();
      if (status in tasks) tasks[status]!++;
    }
  }
  return {
    jid: job.id,
    name: job.name,
    state: job.status,
    'start-time': job.startTime,
    'end-time': job.endTime ?? -1,
    duration: (job.endTime ?? now) - job.startTime,
    'last-modification': job.endTime ?? now,
    tasks,
  };
}

/** The job graph (Flink's `plan`): nodes with parallelism and their inputs with the exchange's partitioner. */
export function jobPlan(job: RunningJob): Record<string, unknown> {
  return {
    jid: job.id,
    name: job.name,
    type: 'STREAMING',
    nodes: job.graph.nodes.map((node) => ({
      id: vertexId(node),
      parallelism: node.parallelism,
      operator: node.transformation.kind,
      description: node.name,
      inputs: node.inputs.map((edge, num) => ({
        num,
        id: vertexId(edge.source),
        ship_strategy: edge.partitioning.kind.toUpperCase(),
        exchange: 'pipelined_bounded',
        ...(edge.sideTag !== undefined ? { side_output: edge.sideTag.id } : {}),
      })),
      // Weir: marks the vertices that serve /cep-partial-matches
      ...(node.transformation.isCep ? { cep: true } : {}),
    })),
  };
}

/** `GET /jobs/:jid`. */
export function jobDetails(job: RunningJob, now: number): Record<string, unknown> {
  return {
    jid: job.id,
    name: job.name,
    isStoppable: true,
    state: job.status,
    'start-time': job.startTime,
    'end-time': job.endTime ?? -1,
    duration: (job.endTime ?? now) - job.startTime,
    now,
    numRestarts: job.numRestarts,
    vertices: job.graph.nodes.map((node) => {
      const subtasks = subtasksOf(job, node);
      let read = 0;
      let written = 0;
      for (const s of subtasks) {
        read += s.recordsIn;
        written += s.recordsOut;
      }
      return {
        id: vertexId(node),
        name: node.name,
        maxParallelism: node.maxParallelism,
        parallelism: node.parallelism,
        status: vertexStatus(job, node),
        'start-time': job.startTime,
        metrics: {
          'read-records': read,
          'read-records-complete': job.endTime !== undefined,
          'write-records': written,
          'write-records-complete': job.endTime !== undefined,
        },
      };
    }),
    plan: jobPlan(job),
  };
}

/** The value of a subtask's metric by its path below the subtask, or undefined when it has none of that name. */
export function subtaskMetric(subtask: SubtaskFigures, name: string): number | undefined {
  return Object.hasOwn(subtask.metrics, name) ? subtask.metrics[name] : undefined;
}

/** The paths of the metrics registered for a subtask (its own and its user groups'). */
export function subtaskMetricNames(subtask: SubtaskFigures): string[] {
  return Object.keys(subtask.metrics);
}

/** A metric value as the REST API sends it: a string, as Flink does (so ±Infinity and NaN survive JSON). */
export function metricString(value: number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return String(value);
}

/** `GET /jobs/:jid/vertices/:vid`. */
export function vertexDetails(job: RunningJob, node: StreamNode, now: number): Record<string, unknown> {
  return {
    id: vertexId(node),
    name: node.name,
    parallelism: node.parallelism,
    maxParallelism: node.maxParallelism,
    now,
    subtasks: subtasksOf(job, node).map((s) => ({
      subtask: s.index,
      status: subtaskStatus(job, s),
      attempt: job.numRestarts,
      'start-time': job.startTime,
      metrics: {
        'read-records': s.recordsIn,
        'write-records': s.recordsOut,
        currentInputWatermark: metricString(s.currentInputWatermark),
        currentOutputWatermark: metricString(s.currentOutputWatermark),
        busyTimeMsPerSecond: s.busyTimeMsPerSecond,
        backPressuredTimeMsPerSecond: s.backPressuredTimeMsPerSecond,
        idleTimeMsPerSecond: s.idleTimeMsPerSecond,
        numRecordsInPerSecond: subtaskMetric(s, 'numRecordsInPerSecond') ?? 0,
        numRecordsOutPerSecond: subtaskMetric(s, 'numRecordsOutPerSecond') ?? 0,
        ...fileProgress(s),
      },
    })),
  };
}

/** A file source subtask's bytes read and to read, when it reports them (other subtasks: nothing). */
function fileProgress(subtask: SubtaskFigures): Record<string, number> {
  const total = subtaskMetric(subtask, 'fileBytesTotal');
  if (total === undefined) return {};
  return {
    fileBytesRead: subtaskMetric(subtask, 'fileBytesRead') ?? 0,
    fileBytesTotal: total,
    fileReadPercentage: subtaskMetric(subtask, 'fileReadPercentage') ?? 0,
  };
}

/** `GET /jobs/:jid/vertices/:vid/watermarks`: Flink's list of `<subtask>.currentInputWatermark`. */
export function vertexWatermarks(job: RunningJob, node: StreamNode): { id: string; value: string }[] {
  return subtasksOf(job, node).flatMap((s) => [
    { id: `${s.index}.currentInputWatermark`, value: metricString(s.currentInputWatermark)! },
    { id: `${s.index}.currentOutputWatermark`, value: metricString(s.currentOutputWatermark)! },
  ]);
}

/** Flink's back-pressure level from the ratio of back-pressured time: ok ≤ 10 %, low ≤ 50 %, high above. */
function backPressureLevel(ratio: number): 'ok' | 'low' | 'high' {
  return ratio <= 0.1 ? 'ok' : ratio <= 0.5 ? 'low' : 'high';
}

/** `GET /jobs/:jid/vertices/:vid/backpressure` (Flink's JobVertexBackPressureInfo). */
export function vertexBackPressure(job: RunningJob, node: StreamNode, now: number): Record<string, unknown> {
  const subtasks = subtasksOf(job, node).map((s) => {
    const ratio = s.backPressuredTimeMsPerSecond / 1000;
    return {
      subtask: s.index,
      'backpressure-level': backPressureLevel(ratio),
      ratio,
      idleRatio: s.idleTimeMsPerSecond / 1000,
      busyRatio: s.busyTimeMsPerSecond / 1000,
    };
  });
  const max = subtasks.reduce((m, s) => Math.max(m, s.ratio), 0);
  return {
    status: 'ok',
    'backpressure-level': backPressureLevel(max),
    'end-timestamp': now,
    subtasks,
  };
}

function checkpointEntry(s: CheckpointStats): Record<string, unknown> {
  return {
    id: s.id,
    status: s.status,
    is_savepoint: s.kind === 'savepoint',
    savepointFormat: s.kind === 'savepoint' ? 'CANONICAL' : null,
    trigger_timestamp: s.triggerTimestamp,
    latest_ack_timestamp: s.latestAckTimestamp ?? -1,
    state_size: s.stateSize,
    end_to_end_duration: s.endToEndDurationMs ?? -1,
    alignment_ms: s.alignmentMs,
    operator_state_size: s.operatorStateSize,
    external_path: s.externalPath ?? null,
    ...(s.failureMessage !== undefined ? { failure_message: s.failureMessage } : {}),
  };
}

function minMaxAvg(values: number[]): { min: number; max: number; avg: number } {
  if (values.length === 0) return { min: 0, max: 0, avg: 0 };
  return {
    min: Math.min(...values),
    max: Math.max(...values),
    avg: values.reduce((a, b) => a + b, 0) / values.length,
  };
}

/** `GET /jobs/:jid/checkpoints` (Flink's CheckpointingStatistics). */
export function checkpointStatistics(job: RunningJob): Record<string, unknown> {
  const stats = job.checkpoints;
  const completed = stats.history().filter((s) => s.status === 'COMPLETED');
  return {
    counts: {
      restored: stats.restored !== undefined ? 1 : 0,
      total: stats.totalNumberOfCheckpoints,
      in_progress: stats.numberOfInProgressCheckpoints,
      completed: stats.numberOfCompletedCheckpoints,
      failed: stats.numberOfFailedCheckpoints,
    },
    summary: {
      state_size: minMaxAvg(completed.map((s) => s.stateSize)),
      end_to_end_duration: minMaxAvg(completed.map((s) => s.endToEndDurationMs ?? 0)),
      alignment_ms: minMaxAvg(completed.map((s) => s.alignmentMs)),
    },
    latest: {
      completed: stats.lastCompleted !== undefined ? checkpointEntry(stats.lastCompleted) : null,
      savepoint: stats.lastSavepoint !== undefined ? checkpointEntry(stats.lastSavepoint) : null,
      failed: stats.lastFailed !== undefined ? checkpointEntry(stats.lastFailed) : null,
      restored:
        stats.restored !== undefined
          ? {
              id: stats.restored.id,
              restore_timestamp: stats.restored.timestamp,
              external_path: stats.restored.path ?? null,
            }
          : null,
    },
    history: stats.history().map(checkpointEntry),
  };
}

/** Hides or cuts the record an exception names, everywhere it appears. */
function showRecord(text: string, record: string | undefined, display: RecordDisplay): string {
  if (record === undefined || record.length === 0) return text;
  return text.split(record).join(displayRecord(record, display));
}

function exceptionEntry(e: ExceptionEntry, display: RecordDisplay): Record<string, unknown> {
  return {
    exceptionName: e.exceptionName,
    message: showRecord(e.message, e.record, display),
    stacktrace: showRecord(e.stacktrace, e.record, display),
    timestamp: e.timestamp,
    taskName: e.taskName ?? null,
    subtaskIndex: e.subtaskIndex ?? null,
    attempt: e.attempt,
    record:
      e.record === undefined ? null : display.showRecords ? showRecord(e.record, e.record, display) : null,
  };
}

/** `GET /jobs/:jid/exceptions` (Flink's JobExceptionsInfoWithHistory). */
export function jobExceptions(job: RunningJob, display: RecordDisplay): Record<string, unknown> {
  const root = job.failureCause ?? job.exceptionHistory()[0];
  return {
    'root-exception': root !== undefined ? showRecord(root.stacktrace, root.record, display) : null,
    timestamp: root?.timestamp ?? null,
    truncated: false,
    exceptionHistory: {
      entries: job.exceptionHistory().map((e) => exceptionEntry(e, display)),
      truncated: false,
    },
  };
}
