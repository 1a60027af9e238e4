// The hyperctl dashboard page. Every poll interval it asks the server for
// the overview (runs, states, progress, matrices), fetches only the new rows
// of the runs of the chosen group (an environment, or a session's space)
// and hands them to uPlot, which draws every chart; this file lays out
// tables and hands data over, it plots nothing itself.
(() => {
  'use strict';

  // Tableau 10: one colour per controller (or per compare and controller),
  // or per run when a group holds a single one (see perRun).
  const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
  const STATES = ['finished', 'pruned', 'running', 'pending', 'stopped', 'failed', 'missing'];
  const CHART_HEIGHT = 230;

  const st = {
    ov: null,          // the last overview
    group: null,       // the chosen group
    hidden: new Set(), // legend keys switched off
    cache: new Map(),  // run id → {gen, stamp, train: {col: []}, eval: {col: []}, hyper: []}
    charts: new Map(), // chart key → {el, u, sig}
    colors: new Map(), // legend key → colour, kept across updates
    ticks: 0,
    timer: null, busy: false, again: false,
  };
  const $ = (s) => document.querySelector(s);

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  }

  // fmt is the tick-label and readout format: short, with k and M.
  function fmt(v) {
    if (v == null || !isFinite(v)) return '';
    const a = Math.abs(v);
    if (a === 0) return '0';
    if (a >= 1e6) return +(v / 1e6).toPrecision(3) + 'M';
    if (a >= 1e4) return +(v / 1e3).toPrecision(3) + 'k';
    if (a < 1e-2) return v.toExponential(1);
    return String(+v.toPrecision(4));
  }

  function plural(n, what) { return n + ' ' + what + (n === 1 ? '' : 's'); }

  async function getJSON(url) {
    const r = await fetch(url, { cache: 'no-store', credentials: 'same-origin' });
    if (!r.ok) {
      let msg = r.status + ' ' + r.statusText;
      try { msg = (await r.json()).error || msg; } catch (e) { /* not JSON */ }
      throw new Error(msg);
    }
    return r.json();
  }

  // ---------------------------------------------------------------- groups

  function groupOf(r) { return r.env || '(unknown)'; }

  function groupsOf(ov) {
    const order = [], n = new Map();
    for (const r of ov.runs) {
      const g = groupOf(r);
      if (!n.has(g)) { order.push(g); n.set(g, 0); }
      n.set(g, n.get(g) + 1);
    }
    return order.map((g) => ({ name: g, n: n.get(g) }));
  }

  function chooseGroup(ov) {
    const groups = groupsOf(ov).map((g) => g.name);
    const fromHash = new URLSearchParams(location.hash.slice(1)).get('group');
    if (fromHash && groups.includes(fromHash)) st.group = fromHash;
    if (st.group && groups.includes(st.group)) return;
    const running = ov.runs.find((r) => r.state === 'running');
    st.group = running ? groupOf(running) : (groups[0] || null);
  }

  function groupRuns(ov) { return ov.runs.filter((r) => groupOf(r) === st.group); }

  // A run's legend key: its controller, prefixed by its compare when the
  // group holds runs of several.
  function legendKey(r, many) { return many && r.collection ? r.collection + ': ' + r.label : r.label; }
  function manyCollections(runs) { return new Set(runs.map((r) => r.collection)).size > 1; }

  // perRun: the group's runs share one legend key (a population's members,
  // one controller's seeds), so each run gets a colour of its own.
  function perRun(runs, many) { return runs.length > 1 && new Set(runs.map((r) => legendKey(r, many))).size === 1; }
  // colorKey is the key a run's colour is chosen by.
  function colorKey(r, many, each) { return each ? legendKey(r, many) + ' · run ' + r.id : legendKey(r, many); }

  function colorOf(key) {
    if (!st.colors.has(key)) st.colors.set(key, PALETTE[st.colors.size % PALETTE.length]);
    return st.colors.get(key);
  }

  // runName names a run in the charts' readout; rowName in the runs table,
  // seed first, as the colour already says the controller. Runs that
  // controller and seed do not tell apart (train's -run2 folders) are named
  // by their folder (r.folder), which the table shows whole (wrapped, not
  // cut), as its end is what tells them apart.
  function runName(r, many) {
    if (st.ov.kind === 'sessions') return r.id + ' (' + r.label + ')';
    if (r.folder) return legendKey(r, many) + ' ' + r.folder;
    const seed = r.seed != null ? ' seed ' + r.seed : '';
    return legendKey(r, many) + seed;
  }
  function rowName(r, many) {
    if (r.folder) return r.folder + ' · ' + legendKey(r, many);
    if (st.ov.kind === 'sessions' || r.seed == null) return runName(r, many);
    return 'seed ' + r.seed + ' · ' + legendKey(r, many);
  }

  // ---------------------------------------------------------------- tables

  function progress(r) {
    let frac = 0, text;
    if (st.ov.kind === 'sessions') {
      text = r.done + ' observations' + (r.iterations ? ' of ' + r.iterations + ' planned' : '');
      frac = r.iterations ? r.done / r.iterations : 0;
    } else if (r.frame_budget) {
      text = fmt(r.frames) + ' / ' + fmt(r.frame_budget) + ' frames';
      frac = r.frames / r.frame_budget;
    } else if (r.iterations) {
      text = r.done + ' / ' + r.iterations + ' iterations';
      frac = r.done / r.iterations;
    } else {
      text = r.done + ' iterations';
    }
    if (r.state === 'finished') frac = 1;
    return { frac: Math.max(0, Math.min(1, frac)), text };
  }

  function renderHeader(ov) {
    $('#kind').textContent = ov.kind === 'sessions' ? 'serve · sessions' : 'dashboard';
    $('#title').textContent = ov.title;
    $('#title').title = ov.title;
    document.title = 'hyperctl · ' + ov.title;
    const c = {};
    for (const r of ov.runs) c[r.state] = (c[r.state] || 0) + 1;
    $('#counts').innerHTML = STATES.filter((s) => c[s]).map((s) => `<span class="badge s-${s}">${c[s]} ${s}</span>`).join('');
    $('#group-label').textContent = ov.group;
  }

  function renderGroups(ov) {
    const sel = $('#group');
    const html = groupsOf(ov).map((g) => `<option value="${esc(g.name)}">${esc(g.name)} (${g.n})</option>`).join('');
    if (sel.dataset.html !== html) { sel.innerHTML = html; sel.dataset.html = html; }
    sel.value = st.group || '';
  }

  function renderLegend(ov) {
    const runs = groupRuns(ov), many = manyCollections(runs), each = perRun(runs, many);
    const n = new Map();
    for (const r of runs) { const k = legendKey(r, many); n.set(k, (n.get(k) || 0) + 1); }
    $('#legend').innerHTML = [...n.keys()].map((k) => `<label class="${st.hidden.has(k) ? 'off' : ''}" data-key="${esc(k)}">
      <input type="checkbox" ${st.hidden.has(k) ? '' : 'checked'}>${each ? '' : `<span class="swatch" style="background:${colorOf(k)}"></span>`}
      <span>${esc(k)}</span><span class="n">${plural(n.get(k), 'run')}${each ? ', a colour each' : ''}</span></label>`).join('');
  }

  function renderRuns(ov) {
    const runs = groupRuns(ov), many = manyCollections(runs), each = perRun(runs, many);
    $('#runs tbody').innerHTML = runs.map((r) => {
      const p = progress(r);
      return `<tr data-id="${esc(r.id)}" data-state="${esc(r.state)}">
        <td class="name${r.folder ? ' folder' : ''}" title="${esc(rowName(r, many) + (r.id !== '.' ? ' (' + r.id + ')' : ''))}"><span class="swatch" style="background:${colorOf(colorKey(r, many, each))}"></span>${esc(rowName(r, many))}</td>
        <td><span class="badge s-${esc(r.state)}" title="${esc(r.detail || '')}">${esc(r.state)}</span></td>
        <td title="${esc(p.text)}"><div class="bar ${r.state === 'finished' ? 'done' : ''}"><div style="width:${(100 * p.frac).toFixed(1)}%"></div></div>
          <div class="progress-text">${esc(p.text)}</div></td></tr>`;
    }).join('');
  }

  function renderMatrices(ov) {
    const byID = new Map(ov.runs.map((r) => [r.id, r]));
    $('#matrices').innerHTML = (ov.matrices || []).map((m) => {
      const S = m.seeds.length, C = m.controllers.length;
      const counts = {};
      let head1 = `<th></th>`, head2 = `<th></th>`;
      m.envs.forEach((e) => {
        head1 += `<td class="gap"></td><th class="env ${e === st.group ? 'sel' : ''}" colspan="${S}" style="max-width:${Math.max(15 * S, 110)}px" data-group="${esc(e)}" title="${esc(e)}: show its curves">${esc(e)}</th>`;
        head2 += `<td class="gap"></td>` + m.seeds.map((s) => `<th class="seed">${s}</th>`).join('');
      });
      const rows = m.controllers.map((c, ci) => {
        let tds = `<th class="ctrl" title="${esc(c)}">${esc(c)}</th>`;
        m.envs.forEach((e, ei) => {
          tds += `<td class="gap"></td>`;
          m.seeds.forEach((s, si) => {
            const r = byID.get(m.runs[(ei * C + ci) * S + si]) || { state: 'missing', detail: '' };
            counts[r.state] = (counts[r.state] || 0) + 1;
            const p = progress(r);
            const tip = `${e} · ${c} · seed ${s}: ${r.state}${r.detail ? ' (' + r.detail + ')' : ''}; ${p.text}`;
            tds += `<td class="${e === st.group ? 'sel' : ''}" title="${esc(tip)}"><div class="cell s-${esc(r.state)}"></div></td>`;
          });
        });
        return `<tr>${tds}</tr>`;
      }).join('');
      const keys = STATES.filter((s) => counts[s]).map((s) => `<span class="badge s-${s}">${counts[s]} ${s}</span>`).join('');
      const where = esc(m.id || ov.title);
      const title = m.population
        ? `population ${where}: ${plural(S, 'member')}, ${esc(m.controllers.join(', '))} on ${esc(m.envs.join(', '))}`
        : `compare ${where}: ${plural(m.envs.length, 'environment')} × ${plural(C, 'controller')} × ${plural(S, 'seed')}`;
      return `<section class="matrix" data-matrix="${esc(m.id)}"><h2>${title}</h2>
        <table><thead><tr>${head1}</tr><tr>${head2}</tr></thead><tbody>${rows}</tbody></table>
        <div class="keys">${keys}${m.queue_error ? ' · Slurm queue not read: ' + esc(m.queue_error) : ''}</div></section>`;
    }).join('');
  }

  function renderProblems(ov) {
    const p = ov.problems || [];
    const el = $('#problems');
    el.hidden = p.length === 0;
    el.innerHTML = p.length ? '<b>Not shown:</b><br>' + p.slice(0, 8).map(esc).join('<br>') + (p.length > 8 ? `<br>… and ${p.length - 8} more` : '') : '';
  }

  // ---------------------------------------------------------------- data

  function newCache(gen) { return { gen, stamp: null, train: {}, eval: {}, hyper: [] }; }
  function rows(t) { return (t.iteration || []).length; }

  // fetchRun reads a run's new rows (all of them after it started over).
  async function fetchRun(r) {
    let c = st.cache.get(r.id);
    if (!c || c.gen !== (r.generation || '')) { c = newCache(r.generation || ''); st.cache.set(r.id, c); }
    for (let guard = 0; guard < 200; guard++) {
      const from = rows(c.train), evalFrom = rows(c.eval);
      const s = await getJSON(`api/series?id=${encodeURIComponent(r.id)}&from=${from}&eval_from=${evalFrom}`);
      if ((s.generation || '') !== c.gen || s.rows < from || s.eval_rows < evalFrom) {
        c = newCache(s.generation || ''); // started over, or cut back by a resume
        st.cache.set(r.id, c);
        continue;
      }
      let got = 0;
      for (const [table, cols] of [['train', s.train], ['eval', s.eval]]) {
        for (const [k, v] of Object.entries(cols || {})) {
          c[table][k] = (c[table][k] || []).concat(v);
          if (k === 'iteration') got += v.length;
        }
      }
      c.hyper = s.hyper || [];
      if (got === 0 || (rows(c.train) >= s.rows && rows(c.eval) >= s.eval_rows)) break;
    }
    c.stamp = r.stamp;
  }

  async function refreshData(ov) {
    const todo = groupRuns(ov).filter((r) => r.stamp && r.stamp !== '-/-' && (!st.cache.has(r.id) || st.cache.get(r.id).stamp !== r.stamp || st.cache.get(r.id).gen !== (r.generation || '')));
    let i = 0;
    const worker = async () => { while (i < todo.length) await fetchRun(todo[i++]); };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }

  // ---------------------------------------------------------------- charts

  function chartList(ov, runs) {
    const list = ov.charts.slice(), seen = new Set(list.map((c) => c.key));
    for (const r of runs) {
      const c = st.cache.get(r.id);
      for (const h of (c ? c.hyper : [])) {
        if (seen.has(h)) continue;
        seen.add(h);
        list.push({ key: h, table: 'train', title: h + (ov.kind === 'sessions' ? ' (suggested)' : ' (in force)'), label: h, points: false });
      }
    }
    return list;
  }

  function readout(u, info, names) {
    const el = info.el.querySelector('.readout');
    const si = info.focus, idx = u.cursor.idx;
    if (si == null || si < 1 || idx == null) { el.textContent = ''; return; }
    const ys = u.data[si];
    let j = idx;
    for (let d = 0; d < 200 && (ys[j] == null); d++) j = ys[idx - d] != null ? idx - d : idx + d;
    if (ys[j] == null) { el.textContent = names[si - 1]; return; }
    el.textContent = `${names[si - 1]}: ${fmt(ys[j])} at ${st.ov.x.label} ${fmt(u.data[0][j])}`;
  }

  function renderCharts(ov) {
    const runs = groupRuns(ov), many = manyCollections(runs), each = perRun(runs, many);
    const list = chartList(ov, runs);
    const box = $('#charts');
    const keep = new Set(list.map((c) => c.key));
    for (const [k, info] of st.charts) {
      if (!keep.has(k)) { if (info.u) info.u.destroy(); info.el.remove(); st.charts.delete(k); }
    }
    const xKey = ov.x.key;
    for (const chart of list) {
      let info = st.charts.get(chart.key);
      if (!info) {
        const el = document.createElement('div');
        el.className = 'chart';
        el.id = 'chart-' + chart.key;
        el.innerHTML = '<div class="plot"></div><div class="readout"></div>';
        info = { el, u: null, sig: '', dataSig: '', focus: null };
        st.charts.set(chart.key, info);
      }
      box.appendChild(info.el); // keeps the list's order
      const shown = runs.filter((r) => {
        const c = st.cache.get(r.id);
        return c && !st.hidden.has(legendKey(r, many)) && (c[chart.table][chart.key] || []).length > 0;
      });
      // Unchanged data is not joined nor drawn again.
      const dataSig = shown.map((r) => { const c = st.cache.get(r.id); return r.id + '@' + c.gen + '@' + rows(c[chart.table]); }).join('|');
      const width = Math.max(300, info.el.clientWidth - 8);
      const sig = [st.group, width, ...shown.map((r) => r.id)].join('|');
      if (info.u && info.sig === sig && info.dataSig === dataSig) continue;
      info.dataSig = dataSig;
      const tables = shown.map((r) => { const t = st.cache.get(r.id)[chart.table]; return [t[xKey], t[chart.key]]; });
      let points = 0;
      for (const t of tables) for (const y of t[1]) if (y != null) points++;
      info.el.dataset.points = points;
      info.el.dataset.series = shown.length;
      const plot = info.el.querySelector('.plot');
      if (shown.length === 0) {
        if (info.u) { info.u.destroy(); info.u = null; }
        info.sig = info.dataSig = '';
        plot.innerHTML = `<div class="empty" style="height:${CHART_HEIGHT}px"><b>${esc(chart.title)}</b><br>no data yet</div>`;
        continue;
      }
      const data = uPlot.join(tables);
      const names = shown.map((r) => runName(r, many));
      if (info.u && info.sig === sig) { info.u.setData(data); continue; }
      if (info.u) info.u.destroy();
      plot.innerHTML = '';
      const axis = (label) => ({ label, labelSize: 16, values: (u, vs) => vs.map(fmt), stroke: '#444', grid: { stroke: '#eceef2' }, ticks: { stroke: '#d0d4db' } });
      const opts = {
        title: chart.title, width, height: CHART_HEIGHT,
        scales: { x: { time: false } },
        legend: { show: false },
        focus: { alpha: 0.25 },
        cursor: { focus: { prox: 24 }, drag: { x: true, y: false } },
        axes: [Object.assign(axis(ov.x.label), { size: 36 }), Object.assign(axis(chart.label), { size: 56 })],
        series: [{ label: ov.x.label }].concat(shown.map((r, i) => {
          const color = colorOf(colorKey(r, many, each));
          return { label: names[i], stroke: color, width: 1.25, spanGaps: true, points: { show: chart.points, size: 4, fill: color, stroke: color } };
        })),
        hooks: {
          setSeries: [(u, si, o) => { if (o && 'focus' in o) { info.focus = o.focus ? si : null; readout(u, info, names); } }],
          setCursor: [(u) => readout(u, info, names)],
        },
      };
      info.u = new uPlot(opts, data, plot);
      info.sig = sig;
    }
  }

  // ---------------------------------------------------------------- loop

  async function tick() {
    if (st.busy) { st.again = true; return; }
    st.busy = true;
    clearTimeout(st.timer);
    try {
      const ov = await getJSON('api/overview');
      st.ov = ov;
      chooseGroup(ov);
      renderHeader(ov);
      renderGroups(ov);
      renderLegend(ov);
      renderRuns(ov);
      renderMatrices(ov);
      renderProblems(ov);
      await refreshData(ov);
      renderCharts(ov);
      st.ticks++;
      document.body.dataset.ticks = st.ticks;
      $('#live').textContent = 'live · updated ' + new Date().toLocaleTimeString();
      $('#live').classList.remove('stale');
    } catch (e) {
      $('#live').textContent = 'not updated: ' + e.message;
      $('#live').classList.add('stale');
    }
    st.busy = false;
    const wait = st.again ? 0 : (st.ov ? st.ov.poll_ms : 2000);
    st.again = false;
    st.timer = setTimeout(tick, wait);
  }

  function select(group) {
    st.group = group;
    history.replaceState(null, '', '#group=' + encodeURIComponent(group));
    tick();
  }

  $('#group').addEventListener('change', (e) => select(e.target.value));
  $('#matrices').addEventListener('click', (e) => { const g = e.target.closest('[data-group]'); if (g) select(g.dataset.group); });
  $('#legend').addEventListener('change', (e) => {
    const k = e.target.closest('label').dataset.key;
    if (e.target.checked) st.hidden.delete(k); else st.hidden.add(k);
    renderLegend(st.ov);
    renderCharts(st.ov);
  });
  window.addEventListener('hashchange', () => tick());
  let resizeTimer = null;
  window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => st.ov && renderCharts(st.ov), 150); });
  tick();
})();
