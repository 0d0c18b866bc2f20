// The status page: polls /status/instances every second and redraws; keeps the last lag values of
// each partition for its sparkline; renders the topology with the mermaid file the plugin serves.
import { brokerText } from './broker-line.js';

const HISTORY = 60;
const lagHistory = new Map();
let topologyDrawn = false;

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
};

function sparkline(values) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'spark');
  svg.setAttribute('viewBox', '0 0 80 18');
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? 80 / (values.length - 1) : 0;
  const line = document.createElementNS(ns, 'polyline');
  line.setAttribute(
    'points',
    values.map((v, i) => `${(i * step).toFixed(1)},${(17 - (v / max) * 16).toFixed(1)}`).join(' '),
  );
  svg.append(line);
  return svg;
}

const ago = (ms) => (ms === null ? 'never' : `${((Date.now() - ms) / 1000).toFixed(1)} s ago`);

/** `standby`: a standby task's rows (its changelog partitions, their lag behind the changelog end). */
function taskRows(host, task, standby = false) {
  const rows = [];
  const partitions = task.topicPartitions.length > 0 ? task.topicPartitions : [null];
  partitions.forEach((p, i) => {
    const key = p ? `${host}|${p.topic}|${p.partition}` : null;
    if (key && p.lag !== null) {
      const h = lagHistory.get(key) ?? [];
      h.push(p.lag);
      if (h.length > HISTORY) h.shift();
      lagHistory.set(key, h);
    }
    const restore = task.restores.find((r) => !r.done);
    const restoreCell = restore
      ? el('progress', { max: restore.endOffset - restore.startOffset || 1, value: restore.restored })
      : '';
    rows.push(
      el(
        'tr',
        standby
          ? { class: 'standby', 'data-standby': task.taskId }
          : { class: 'task', 'data-task': task.taskId },
        el('td', {}, i === 0 ? task.taskId : ''),
        el('td', {}, i === 0 ? (standby ? 'STANDBY' : task.state) : ''),
        el('td', { class: 'partition' }, p ? `${p.topic}-${p.partition}` : '—'),
        el('td', { class: 'num lag' }, p?.lag ?? '—'),
        el('td', {}, key ? sparkline(lagHistory.get(key) ?? []) : ''),
        // A standby processes and commits nothing: those cells stay empty.
        el('td', { class: 'num' }, i === 0 && !standby ? task.processRate.toFixed(1) : ''),
        el('td', { class: 'num' }, i === 0 && !standby ? task.rollbacksTotal : ''),
        el('td', {}, i === 0 && !standby ? ago(task.lastCommitMs) : ''),
        el('td', {}, i === 0 ? restoreCell : ''),
      ),
    );
  });
  return rows;
}

function instanceCard(entry) {
  const host = entry.host ?? '(no applicationServer)';
  if (!entry.status) {
    return el(
      'section',
      { class: 'instance', 'data-host': host },
      el('h2', {}, host, ' ', el('span', { class: 'state unreachable' }, 'unreachable')),
      el('p', { class: 'facts' }, entry.error ?? ''),
    );
  }
  const s = entry.status;
  const thread = s.threads[0];
  const head = el(
    'tr',
    {},
    ...['task', 'state', 'partition', 'lag', '', 'rec/s', 'rollbacks', 'last commit', 'restore'].map((h) =>
      el('th', {}, h),
    ),
  );
  const standbys = thread.standbyTasks ?? [];
  const body = [
    ...thread.activeTasks.flatMap((t) => taskRows(host, t)),
    ...standbys.flatMap((t) => taskRows(host, t, true)),
  ];
  return el(
    'section',
    { class: 'instance', 'data-host': host },
    el('h2', {}, host, ' ', el('span', { class: `state ${s.state}` }, s.state)),
    el(
      'p',
      { class: 'facts' },
      `${s.processingGuarantee} · ${thread.activeTasks.length} tasks${standbys.length > 0 ? ` · ${standbys.length} standbys` : ''} · lag ${s.totalLag} · ${thread.processRate.toFixed(1)} rec/s · ${thread.commitRate.toFixed(2)} commits/s · last commit ${ago(thread.lastCommitMs)}`,
    ),
    el('p', { class: `broker ${s.broker?.outage ? 'down' : 'up'}` }, brokerText(s.broker)),
    el('table', {}, el('thead', {}, head), el('tbody', {}, ...body)),
  );
}

async function drawTopology(source) {
  if (topologyDrawn || !window.mermaid) return;
  topologyDrawn = true;
  window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
  const { svg } = await window.mermaid.render('topology-svg', source);
  document.getElementById('topology').innerHTML = svg;
}

async function refresh() {
  try {
    const res = await fetch('/status/instances');
    const data = await res.json();
    const cards = data.instances.map(instanceCard);
    document.getElementById('instances').replaceChildren(...cards);
    document.getElementById('app-id').textContent = data.applicationId;
    const tasks = data.instances.reduce((n, i) => n + (i.status?.threads[0].activeTasks.length ?? 0), 0);
    document.getElementById('summary').textContent =
      `${data.instances.length} instances · ${tasks} tasks · updated ${new Date().toLocaleTimeString()}`;
    const first = data.instances.find((i) => i.status);
    if (first) await drawTopology(first.status.topology);
  } catch (error) {
    document.getElementById('summary').textContent = `cannot reach /status/instances: ${error}`;
  }
}

await refresh();
setInterval(refresh, 1000);
