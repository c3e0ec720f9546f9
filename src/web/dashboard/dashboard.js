// The Weir dashboard: polls the REST API of the job that serves this page and draws the job graph and tables.
const POLL_MS = 1000;
const state = { jobId: undefined, plan: undefined };

const $ = (id) => document.getElementById(id);

async function getJson(path) {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

async function send(method, path, body) {
  const headers = { 'content-type': 'application/json' };
  const token = $('token').value;
  if (token !== '') headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, body: JSON.stringify(body ?? {}) });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(json.errors?.join('; ') ?? `HTTP ${response.status}`);
  return json;
}

function el(tag, attributes = {}, text) {
  const node = document.createElementNS(
    tag === 'svg' || ['g', 'rect', 'text', 'path', 'marker', 'defs', 'title'].includes(tag)
      ? 'http://www.w3.org/2000/svg'
      : 'http://www.w3.org/1999/xhtml',
    tag,
  );
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function cell(text, numeric = false) {
  return el('td', numeric ? { class: 'num' } : {}, text);
}

const number = new Intl.NumberFormat('en');
function formatCount(n) {
  return number.format(Math.round(Number(n)));
}

function formatWatermark(value) {
  if (value === undefined || value === '-Infinity') return '–';
  if (value === 'Infinity') return 'end of input';
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 1e11 ? new Date(ms).toISOString().replace('T', ' ') : String(ms);
}

function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Busy 0..1000 ms/s → a colour from blue (idle) to red (busy), as Flink's UI does. */
function busyColour(busy) {
  const t = Math.max(0, Math.min(1, busy / 1000));
  const hue = 210 - 210 * t;
  return `hsl(${hue}, 70%, ${85 - 30 * t}%)`;
}

/** Lays nodes out in columns by their distance from the sources. */
function layout(plan) {
  const depth = new Map();
  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const depthOf = (node) => {
    if (depth.has(node.id)) return depth.get(node.id);
    const d = node.inputs.length === 0 ? 0 : 1 + Math.max(...node.inputs.map((i) => depthOf(byId.get(i.id))));
    depth.set(node.id, d);
    return d;
  };
  const columns = [];
  for (const node of plan.nodes) {
    const d = depthOf(node);
    (columns[d] ??= []).push(node);
  }
  const positions = new Map();
  const width = 150;
  const height = 54;
  columns.forEach((column, c) =>
    column.forEach((node, r) =>
      positions.set(node.id, { x: 20 + c * (width + 60), y: 20 + r * (height + 30) }),
    ),
  );
  return {
    positions,
    width,
    height,
    columns: columns.length,
    rows: Math.max(...columns.map((c) => c.length)),
  };
}

function drawGraph(plan, vertices) {
  const svg = $('graph');
  const { positions, width, height, columns, rows } = layout(plan);
  svg.replaceChildren();
  svg.setAttribute('viewBox', `0 0 ${40 + columns * (width + 60)} ${40 + rows * (height + 30)}`);
  const defs = el('defs');
  const marker = el('marker', {
    id: 'arrow',
    viewBox: '0 0 10 10',
    refX: 10,
    refY: 5,
    markerWidth: 6,
    markerHeight: 6,
    orient: 'auto',
  });
  marker.append(el('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#5a6475' }));
  defs.append(marker);
  svg.append(defs);
  for (const node of plan.nodes) {
    const to = positions.get(node.id);
    for (const input of node.inputs) {
      const from = positions.get(input.id);
      const x1 = from.x + width;
      const y1 = from.y + height / 2;
      const x2 = to.x;
      const y2 = to.y + height / 2;
      svg.append(
        el('path', { class: 'edge', d: `M ${x1} ${y1} C ${x1 + 30} ${y1}, ${x2 - 30} ${y2}, ${x2} ${y2}` }),
      );
      const label =
        input.side_output !== undefined
          ? `${input.ship_strategy} (${input.side_output})`
          : input.ship_strategy;
      svg.append(el('text', { class: 'edge-label', x: (x1 + x2) / 2 - 20, y: (y1 + y2) / 2 - 4 }, label));
    }
  }
  for (const node of plan.nodes) {
    const { x, y } = positions.get(node.id);
    const vertex = vertices.get(node.id);
    const busy = vertex?.busy ?? 0;
    const backPressured = vertex?.backPressured ?? 0;
    const group = el('g', {
      class: `node${backPressured > 100 ? ' backpressured' : ''}`,
      'data-vertex': node.id,
    });
    group.append(
      el('title', {}, `${node.description}: busy ${busy} ms/s, back-pressured ${backPressured} ms/s`),
    );
    group.append(el('rect', { x, y, width, height, fill: busyColour(busy) }));
    group.append(el('text', { x: x + 8, y: y + 18 }, node.description.slice(0, 22)));
    group.append(el('text', { x: x + 8, y: y + 34 }, `parallelism ${node.parallelism}`));
    group.append(el('text', { x: x + 8, y: y + 48 }, `${formatCount(vertex?.outRate ?? 0)} rec/s out`));
    svg.append(group);
  }
}

/** A file source's progress over all its subtasks: "42.5 % of 1.2 MB"; "–" for other operators. */
function formatReadProgress(read, total) {
  if (total === undefined) return '–';
  const percent = total === 0 ? 100 : Math.floor((read * 1000) / total) / 10;
  return `${percent} % of ${formatBytes(total)}`;
}

async function refreshJobList() {
  const { jobs } = await getJson('/jobs/overview');
  const select = $('job-select');
  const known = [...select.options].map((o) => o.value).join();
  if (known !== jobs.map((j) => j.jid).join()) {
    select.replaceChildren(
      ...jobs.map((j) => el('option', { value: j.jid }, `${j.name} (${j.jid.slice(0, 8)})`)),
    );
  }
  if (state.jobId === undefined || !jobs.some((j) => j.jid === state.jobId)) {
    const running = jobs.find((j) => j.state === 'RUNNING') ?? jobs[0];
    state.jobId = running?.jid;
  }
  select.value = state.jobId ?? '';
}

async function refresh() {
  await refreshJobList();
  const jid = state.jobId;
  if (jid === undefined) return;
  const job = await getJson(`/jobs/${jid}`);
  $('job-status').textContent = job.state;
  $('job-status').className = `status ${job.state}`;
  $('job-duration').textContent = `${(job.duration / 1000).toFixed(0)} s, ${job.numRestarts} restart(s)`;
  const vertices = new Map();
  const operatorRows = [];
  const watermarkRows = [];
  for (const vertex of job.vertices) {
    const details = await getJson(`/jobs/${jid}/vertices/${vertex.id}`);
    let busy = 0;
    let backPressured = 0;
    let inRate = 0;
    let outRate = 0;
    let fileBytesRead = 0;
    let fileBytesTotal;
    for (const s of details.subtasks) {
      if (s.metrics.fileBytesTotal !== undefined) {
        fileBytesRead += s.metrics.fileBytesRead;
        fileBytesTotal = (fileBytesTotal ?? 0) + s.metrics.fileBytesTotal;
      }
      busy = Math.max(busy, s.metrics.busyTimeMsPerSecond);
      backPressured = Math.max(backPressured, s.metrics.backPressuredTimeMsPerSecond);
      inRate += s.metrics.numRecordsInPerSecond;
      outRate += s.metrics.numRecordsOutPerSecond;
      const watermarkRow = el('tr');
      watermarkRow.append(
        cell(vertex.name),
        cell(String(s.subtask), true),
        cell(formatWatermark(s.metrics.currentInputWatermark)),
        cell(formatWatermark(s.metrics.currentOutputWatermark)),
      );
      watermarkRows.push(watermarkRow);
    }
    vertices.set(vertex.id, { busy, backPressured, outRate });
    const row = el('tr', { 'data-vertex': vertex.id });
    row.append(
      cell(vertex.name),
      cell(String(vertex.parallelism), true),
      cell(formatCount(vertex.metrics['read-records']), true),
      cell(formatCount(vertex.metrics['write-records']), true),
      cell(formatCount(inRate), true),
      cell(formatCount(outRate), true),
      cell(`${busy} ms/s`, true),
      cell(`${backPressured} ms/s`, true),
      cell(vertex.status),
      cell(formatReadProgress(fileBytesRead, fileBytesTotal), true),
    );
    operatorRows.push(row);
  }
  $('operators').tBodies[0].replaceChildren(...operatorRows);
  $('watermarks').tBodies[0].replaceChildren(...watermarkRows);
  drawGraph(job.plan, vertices);

  await refreshPartialMatches(jid, job);

  const checkpoints = await getJson(`/jobs/${jid}/checkpoints`);
  const c = checkpoints.counts;
  $('checkpoint-counts').textContent =
    `${c.completed} completed, ${c.failed} failed, ${c.in_progress} in progress` +
    (checkpoints.latest.restored ? `; restored from ${checkpoints.latest.restored.id}` : '');
  $('checkpoints').tBodies[0].replaceChildren(
    ...checkpoints.history.map((h) => {
      const row = el('tr');
      row.append(
        cell(String(h.id), true),
        cell(h.is_savepoint ? 'savepoint' : 'checkpoint'),
        cell(h.status),
        cell(new Date(h.trigger_timestamp).toISOString().slice(11, 19)),
        cell(h.end_to_end_duration >= 0 ? `${h.end_to_end_duration} ms` : '–', true),
        cell(formatBytes(h.state_size), true),
        cell(h.failure_message ?? h.external_path ?? ''),
      );
      return row;
    }),
  );

  const exceptions = await getJson(`/jobs/${jid}/exceptions`);
  $('exceptions').replaceChildren(
    ...(exceptions.exceptionHistory.entries.length === 0
      ? [el('p', {}, 'No exceptions.')]
      : exceptions.exceptionHistory.entries.map((e) => {
          const box = el('div', { class: 'exception' });
          box.append(
            el(
              'strong',
              {},
              `${e.exceptionName} in ${e.taskName ?? 'the job'}${e.subtaskIndex !== null ? ` (subtask ${e.subtaskIndex})` : ''}, attempt ${e.attempt}, ${new Date(e.timestamp).toISOString()}`,
            ),
            el('p', {}, e.message),
          );
          if (e.record !== null) box.append(el('p', {}, `Record: ${e.record}`));
          box.append(el('pre', {}, e.stacktrace));
          return box;
        })),
  );
}

/** Keys and events per partial match the page asks for: enough to read, bounded for a job with many keys. */
const PARTIAL_MATCH_LIMITS = '?max-keys=20&max-events=10';

/** The CEP vertices' partial matches per key, one row per partial match (or per key with only queued events). */
async function refreshPartialMatches(jid, job) {
  const cepIds = new Set(job.plan.nodes.filter((n) => n.cep === true).map((n) => n.id));
  const cepVertices = job.vertices.filter((v) => cepIds.has(v.id));
  $('partial-matches-section').hidden = cepVertices.length === 0;
  if (cepVertices.length === 0) return;
  const rows = [];
  const notes = [];
  for (const vertex of cepVertices) {
    let snapshot;
    try {
      snapshot = await getJson(
        `/jobs/${jid}/vertices/${vertex.id}/cep-partial-matches${PARTIAL_MATCH_LIMITS}`,
      );
    } catch {
      // a job that ended keeps no partial matches to show
      continue;
    }
    for (const subtask of snapshot.subtasks) {
      if (subtask.truncated) {
        notes.push(
          `${vertex.name} (subtask ${subtask.subtask}): ${subtask.keys.length} of ${subtask.numKeys} keys shown`,
        );
      }
      for (const key of subtask.keys) {
        const matches = key.partialMatches.length === 0 ? [undefined] : key.partialMatches;
        for (const match of matches) {
          const row = el('tr', { 'data-vertex': vertex.id, 'data-key': key.key });
          const events =
            match === undefined
              ? ''
              : match.events
                  .map((e) => `${e.stage}@${e.timestamp}${e.record === null ? '' : ` ${e.record}`}`)
                  .join(' → ') +
                (match.numEvents > match.events.length
                  ? ` (+${match.numEvents - match.events.length} more)`
                  : '');
          row.append(
            cell(vertex.name),
            cell(String(subtask.subtask), true),
            cell(key.key),
            cell(match?.state ?? '–'),
            cell(match === undefined ? '–' : formatWatermark(String(match.startTimestamp)), true),
            cell(events),
            cell(String(key.queuedEvents), true),
          );
          rows.push(row);
        }
      }
    }
  }
  $('partial-matches').tBodies[0].replaceChildren(...rows);
  $('partial-matches-note').textContent =
    rows.length === 0 ? 'No partial matches in progress.' : notes.join('; ');
}

async function pollSavepoint(jid, requestId) {
  for (;;) {
    const result = await getJson(`/jobs/${jid}/savepoints/${requestId}`);
    if (result.status.id === 'COMPLETED') return result.operation;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

async function savepoint(stop) {
  const jid = state.jobId;
  const dir = $('savepoint-dir').value.trim();
  if (jid === undefined) return;
  if (dir === '') {
    $('message').textContent = 'Enter the directory to write the savepoint under.';
    return;
  }
  $('message').textContent = stop ? 'Stopping with a savepoint…' : 'Savepoint in progress…';
  try {
    const { 'request-id': requestId } = await send(
      'POST',
      `/jobs/${jid}/${stop ? 'stop' : 'savepoints'}`,
      stop ? { targetDirectory: dir } : { 'target-directory': dir },
    );
    const operation = await pollSavepoint(jid, requestId);
    $('message').textContent =
      operation.location !== undefined
        ? `Savepoint completed: ${operation.location}`
        : `Savepoint failed: ${operation['failure-cause']['stack-trace']}`;
  } catch (error) {
    $('message').textContent = `Savepoint failed: ${error.message}`;
  }
}

async function cancel() {
  const jid = state.jobId;
  if (jid === undefined) return;
  try {
    await send('PATCH', `/jobs/${jid}?mode=cancel`);
    $('message').textContent = 'Cancel requested.';
  } catch (error) {
    $('message').textContent = `Cancel failed: ${error.message}`;
  }
}

async function loop() {
  try {
    await refresh();
  } catch (error) {
    $('message').textContent = `Lost contact with the job: ${error.message}`;
  }
  setTimeout(loop, POLL_MS);
}

$('job-select').addEventListener('change', (event) => {
  state.jobId = event.target.value;
});
$('savepoint-button').addEventListener('click', () => savepoint(false));
$('stop-button').addEventListener('click', () => savepoint(true));
$('cancel-button').addEventListener('click', cancel);
loop();
