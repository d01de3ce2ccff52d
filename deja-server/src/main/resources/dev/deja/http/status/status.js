// deja's status page: reads the JSON API every few seconds and draws what it says; no library, nothing fetched
// from elsewhere. Every value is set as text, never as HTML.
'use strict';

(() => {
  const REFRESH_MS = 3000;
  const SVG = 'http://www.w3.org/2000/svg';

  class Unauthorized extends Error {}

  // location.origin carries no user name or password, which fetch refuses in a URL, and which a relative URL would
  // inherit from a page opened with them in its address; the browser sends this origin's credentials by itself
  const url = (path) => new URL(path, location.origin).href;

  async function json(path) {
    const response = await fetch(url(path), { cache: 'no-store', headers: { Accept: 'application/json' } });
    if (response.status === 401) {
      throw new Unauthorized();
    }
    if (!response.ok) {
      throw new Error(`${path} answered ${response.status}`);
    }
    return response.json();
  }

  function bytes(n) {
    if (n == null || n < 0) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return `${i === 0 ? n : n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
  }

  function count(n) {
    return Number(n).toLocaleString('en-US');
  }

  function rate(n) {
    if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
    if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
    if (n >= 100) return n.toFixed(0);
    return n.toFixed(n === 0 ? 0 : 1);
  }

  function duration(seconds) {
    const s = Math.floor(seconds);
    const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
    if (d > 0) return `${d}d ${h}h`;
    if (h > 0) return `${h}h ${m}m`;
    if (m > 0) return `${m}m ${s % 60}s`;
    return `${s}s`;
  }

  function percent(fraction) {
    const p = fraction * 100;
    return `${p < 10 ? p.toFixed(2) : p.toFixed(1)}%`;
  }

  function probability(p) {
    return p === 0 ? '0' : p >= 0.001 ? percent(p) : p.toExponential(1);
  }

  function cell(row, text, className, title) {
    const td = row.insertCell();
    td.textContent = text;
    if (className) td.className = className;
    if (title) td.title = title;
    return td;
  }

  function fill(ns) {
    const e = ns.errorEstimate || {};
    if (typeof e.fillRatio === 'number') return percent(e.fillRatio);
    if (typeof e.load === 'number') return percent(e.load);
    if (ns.capacity > 0) return percent(ns.count / ns.capacity);
    return '–';
  }

  function errorNow(ns) {
    const e = ns.errorEstimate || {};
    if (typeof e.effectiveWindowSeconds === 'number') {
      return [`window ${duration(e.effectiveWindowSeconds)}`, 'the age of the oldest key still held'];
    }
    if (typeof e.currentFpp === 'number') {
      return [`fpp ${probability(e.currentFpp)}`,
        `false-positive probability a new key meets now; sized for ${probability(e.targetFpp)}`];
    }
    if (typeof e.keysHeldAt90Percent === 'number') {
      return [`holds ${count(e.keysHeldAt90Percent)} keys`,
        'a key is still held, with 90% probability, until this many later new keys'];
    }
    return [Object.entries(e).map(([k, v]) => `${k} ${v}`).join(', ') || '–', ''];
  }

  function chart(rates, interval) {
    const svg = document.createElementNS(SVG, 'svg');
    const width = 120, height = 30;
    svg.setAttribute('class', 'chart');
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    const base = document.createElementNS(SVG, 'line');
    base.setAttribute('x1', 0); base.setAttribute('x2', width);
    base.setAttribute('y1', height - 0.5); base.setAttribute('y2', height - 0.5);
    svg.append(base);
    const max = Math.max(...rates, 0);
    if (rates.length > 0) {
      const step = width / (120 - 1);
      const x0 = width - (rates.length - 1) * step;
      const points = rates.map((r, i) =>
        `${(x0 + i * step).toFixed(1)},${(height - 1 - (max > 0 ? r / max : 0) * (height - 2)).toFixed(1)}`);
      if (points.length === 1) points.unshift(`${(x0 - step).toFixed(1)},${points[0].split(',')[1]}`);
      const line = document.createElementNS(SVG, 'polyline');
      line.setAttribute('points', points.join(' '));
      svg.append(line);
    }
    const title = document.createElementNS(SVG, 'title');
    title.textContent = rates.length === 0
      ? 'no sample yet'
      : `${rates.length} samples, one per ${interval} s; peak ${rate(max)}/s`;
    svg.append(title);
    return svg;
  }

  function renderServer(info) {
    document.getElementById('version').textContent = info.version;
    document.getElementById('uptime').textContent = duration(info.uptimeSeconds);
    document.getElementById('heap').textContent = `${bytes(info.heap.usedBytes)} of ${bytes(info.heap.maxBytes)}`;
    const disk = info.disk;
    const el = document.getElementById('disk');
    el.textContent = disk.usedBytes < 0
      ? 'measuring…'
      : `${bytes(disk.usedBytes)} used, ${bytes(disk.usableBytes)} free`;
    el.title = `data dir ${disk.dataDir}`;
  }

  function renderNamespaces(namespaces, activity) {
    const rows = document.getElementById('rows');
    const body = document.createElement('tbody');
    body.id = 'rows';
    for (const ns of namespaces) {
      const history = activity.namespaces[ns.name] || { operations: 0, perSecond: [] };
      const row = body.insertRow();
      row.dataset.namespace = ns.name;
      row.dataset.kind = ns.kind;
      cell(row, ns.name, 'name', ns.guarantee ? `may wrongly say: ${ns.guarantee.mayWronglySay}` : '');
      cell(row, ns.kind, 'kind', Object.entries(ns.parameters || {}).map(([k, v]) => `${k}=${v}`).join(' '));
      cell(row, bytes(ns.memoryBytes), 'num memory', ns.kind === 'exact' ? 'on disk' : 'memory');
      const keys = cell(row, count(ns.count), 'num keys', ns.capacity > 0 ? `capacity ${count(ns.capacity)}` : '');
      keys.dataset.value = ns.count;
      cell(row, fill(ns), 'num fill');
      const [error, why] = errorNow(ns);
      cell(row, error, 'error', why);
      const ops = row.insertCell();
      ops.className = 'ops';
      const rates = history.perSecond;
      ops.dataset.operations = history.operations;
      ops.dataset.peak = Math.max(0, ...rates);
      const now = document.createElement('span');
      now.className = 'rate';
      now.textContent = rates.length ? `${rate(rates[rates.length - 1])}/s` : '–';
      const total = document.createElement('span');
      total.className = 'small';
      total.textContent = `${count(history.operations)} total`;
      ops.append(chart(rates, activity.intervalSeconds), now, total);
    }
    rows.replaceWith(body);
    document.getElementById('empty').hidden = namespaces.length > 0;
  }

  function state(text, failed) {
    const el = document.getElementById('state');
    el.textContent = text;
    el.classList.toggle('error', failed);
  }

  async function refresh() {
    try {
      const [info, list, activity] = await Promise.all([json('/info'), json('/namespaces'), json('/activity')]);
      renderServer(info);
      renderNamespaces(list.namespaces, activity);
      state(`updated ${new Date().toLocaleTimeString()}`, false);
    } catch (e) {
      state(e instanceof Unauthorized
        ? 'not authorized: reload the page and enter the password'
        : `cannot read the server: ${e.message}`, true);
    } finally {
      setTimeout(refresh, REFRESH_MS);
    }
  }

  refresh();
})();
