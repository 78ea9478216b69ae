// svc-ctl status page. Plain JavaScript, no library, no build step: it asks
// the JSON API of the svc-ctl process that served it, renders, and patches
// the DOM in place every 2 s so nothing flickers and hover, focus and
// scroll survive a refresh. The API's token comes in the URL's fragment
// (#token=..., never sent to a server); the page moves it into
// sessionStorage (this origin's, port included: no other page on
// 127.0.0.1 can read it), takes it out of the address bar and sends it as
// an Authorization header. No cookie: a browser would send one to every
// server on 127.0.0.1.
'use strict';
(() => {
  const SVG = 'http://www.w3.org/2000/svg';
  const POLL_MS = 2000;
  const TIMELINE_MS = { fit: 2000, '1h': 2000, '24h': 2000, '7d': 10000 };

  const ui = {
    state: null,
    timeline: null,
    range: 'fit', // the history there is: from the first run, up to a day
    timelineAt: 0,
    marks: new Map(), // data-k -> {strip, mark}
    detail: null, // {name, at}
    busy: new Set(), // "action:name" in flight
  };

  // ---------- DOM helpers ----------

  // h builds an HTML element: h('div', {class: 'x', 'data-k': 1}, child...).
  function h(tag, attrs, ...kids) {
    return build(document.createElement(tag), attrs, kids);
  }
  // s builds an SVG element.
  function s(tag, attrs, ...kids) {
    return build(document.createElementNS(SVG, tag), attrs, kids);
  }
  function build(el, attrs, kids) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false || kid === '') continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }

  // morph makes `from` look like `to`, touching only what differs.
  function morph(from, to) {
    if (from.nodeType !== to.nodeType || from.nodeName !== to.nodeName ||
        (from.nodeType === 1 && from.getAttribute('data-key') !== to.getAttribute('data-key'))) {
      from.replaceWith(to);
      return;
    }
    if (from.nodeType === 3) {
      if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue;
      return;
    }
    if (from.nodeType !== 1) return;
    for (const a of Array.from(from.attributes)) {
      if (!to.hasAttribute(a.name)) from.removeAttribute(a.name);
    }
    for (const a of Array.from(to.attributes)) {
      if (from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
    }
    morphChildren(from, Array.from(to.childNodes));
  }
  function morphChildren(parent, kids) {
    const old = Array.from(parent.childNodes);
    kids.forEach((kid, i) => {
      if (i < old.length) morph(old[i], kid);
      else parent.append(kid);
    });
    for (let i = kids.length; i < old.length; i++) old[i].remove();
  }
  function render(id, ...kids) {
    const el = document.getElementById(id);
    const wrap = document.createElement('div');
    build(wrap, null, kids);
    morphChildren(el, Array.from(wrap.childNodes));
  }

  // ---------- formatting ----------

  const ms = (t) => (t ? Date.parse(t) : 0);
  function ago(t, now) {
    const d = Math.round(((now || Date.now()) - ms(t)) / 1000);
    if (!t || Number.isNaN(d)) return '–';
    if (d < 0) return 'in ' + dur(-d);
    if (d < 5) return 'just now';
    return dur(d) + ' ago';
  }
  function dur(sec) {
    sec = Math.round(sec);
    if (sec < 60) return sec + ' s';
    if (sec < 3600) return Math.floor(sec / 60) + ' min' + (sec < 600 && sec % 60 ? ' ' + (sec % 60) + ' s' : '');
    if (sec < 86400) return Math.floor(sec / 3600) + ' h' + (sec % 3600 >= 60 ? ' ' + Math.floor((sec % 3600) / 60) + ' min' : '');
    return Math.floor(sec / 86400) + ' d' + (sec % 86400 >= 3600 ? ' ' + Math.floor((sec % 86400) / 3600) + ' h' : '');
  }
  function durMS(m) {
    if (m === undefined || m === null) return '';
    return m < 1000 ? m + ' ms' : m < 60000 ? (m / 1000).toFixed(1) + ' s' : dur(m / 1000);
  }
  const timeFmt = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  const dayFmt = new Intl.DateTimeFormat([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hour12: false });
  const hourFmt = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', hour12: false });
  const dateFmt = new Intl.DateTimeFormat([], { weekday: 'short', day: 'numeric' });
  function when(t) {
    const x = ms(t);
    if (!x) return '–';
    return Date.now() - x < 20 * 3600e3 && new Date(x).getDate() === new Date().getDate() ? timeFmt.format(x) : dayFmt.format(x);
  }
  function bytes(n) {
    if (!n) return '0 B';
    const u = ['B', 'KiB', 'MiB', 'GiB'];
    let i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return (n >= 100 || i === 0 ? Math.round(n) : n.toFixed(1)) + ' ' + u[i];
  }
  const causeKind = (c) => (c || '').split(':')[0];
  const verdict = (o, r) => (r ? o + '/' + r : o);

  // ---------- API ----------

  const TOKEN_KEY = 'svcctl-token';
  let keptToken = ''; // where sessionStorage is turned off: this page's life only
  (() => {
    const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
    if (!m) return;
    keptToken = m[1];
    try { sessionStorage.setItem(TOKEN_KEY, m[1]); } catch (e) { /* kept above */ }
    history.replaceState(null, '', location.pathname + location.search);
  })();
  function token() {
    try { return sessionStorage.getItem(TOKEN_KEY) || keptToken; } catch (e) { return keptToken; }
  }
  function headers(extra) {
    return Object.assign({ Accept: 'application/json', Authorization: 'Bearer ' + token() }, extra || {});
  }

  class AuthError extends Error {}
  class Unreachable extends Error {}
  async function api(path, opts) {
    let r;
    try {
      r = await fetch(path, Object.assign({ cache: 'no-store', headers: headers() }, opts || {}));
    } catch (e) {
      throw new Unreachable('svc-ctl ui is not answering (' + e.message + '): is it still running?');
    }
    if (r.status === 401) throw new AuthError('this page is no longer signed in: open the URL `svc-ctl ui` printed');
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) throw new Error((body && body.error) || r.status + ' ' + r.statusText);
    return body;
  }
  function act(action, body) {
    return api('/api/actions/' + action, {
      method: 'POST',
      headers: headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify(body),
    });
  }

  // ---------- the loop ----------

  let timer = 0;
  async function tick() {
    clearTimeout(timer);
    try {
      ui.state = await api('/api/state');
      renderState();
      const every = TIMELINE_MS[ui.range];
      if (Date.now() - ui.timelineAt >= every) {
        const range = ui.range;
        const tl = await api('/api/timeline?range=' + range);
        if (range === ui.range) {
          ui.timeline = tl;
          ui.timelineAt = Date.now();
          renderTimeline();
        }
      }
      banner('');
    } catch (e) {
      banner(e.message); // not signed in, not answering, or what the server could not read
    }
    if (!document.hidden) timer = setTimeout(tick, POLL_MS);
  }
  function banner(msg) {
    const b = document.getElementById('banner');
    b.hidden = !msg;
    if (b.textContent !== msg) b.textContent = msg;
  }

  // ---------- state: summary, services, jobs, agent ----------

  function renderState() {
    const st = ui.state;
    const a = st.agent;
    document.getElementById('host').textContent = st.host ? '· ' + st.host : '';
    const pill = document.getElementById('agent-pill');
    pill.className = 'pill ' + a.state;
    pill.textContent = 'agent ' + a.state;
    pill.title = a.why || '';
    document.getElementById('updated').textContent = 'updated ' + timeFmt.format(ms(st.now));
    document.title = titleOf(st);
    renderConfig(st);
    renderSummary(st);
    render('services', st.services.length ? st.services.map((x) => serviceItem(x, st)) : h('p', { class: 'empty' }, 'No services configured.'));
    render('jobs', st.jobs.length ? st.jobs.map((x) => jobItem(x, st)) : h('p', { class: 'empty' }, 'No jobs configured.'));
    render('agent', agentBlock(st));
    render('footer', 'config ', h('code', null, st.config), ' · state ', h('code', null, st.state_dir), ' · svc-ctl ', st.version || 'dev');
  }

  // The config file does not load (or cannot be used): say so above
  // everything, with what the page shows instead and the file's errors.
  function renderConfig(st) {
    const err = st.config_error || '';
    const b = document.getElementById('config-banner');
    b.hidden = !err;
    if (!err) { render('config-banner'); return; }
    const shown = st.config_shown === 'state_dir'
      ? 'showing services and jobs as svc-ctl recorded them in the state dir'
      : 'showing the config loaded before';
    render('config-banner',
      h('div', null, h('b', null, 'config: BROKEN'), ' — ', shown, '; actions are refused until the file loads. The page reads it again when it changes.'),
      h('pre', { class: 'config-errors' }, err));
  }

  function titleOf(st) {
    const bad = st.services.filter((x) => !['healthy', 'paused', 'stopped'].includes(x.state)).length;
    return (bad ? '✕ ' + bad + ' down · ' : '') + 'svc-ctl' + (st.host ? ' · ' + st.host : '');
  }

  function renderSummary(st) {
    const healthy = st.services.filter((x) => x.state === 'healthy').length;
    const paused = st.services.filter((x) => x.state === 'paused' || x.state === 'stopped').length;
    const down = st.services.length - healthy - paused;
    // Restarts as the timeline marks them (restart_by); amber only for the
    // watchdog's: a person's or a reload's restart is no sign of trouble.
    const byWatchdog = st.services.reduce((n, x) => n + (x.restarts_24h || 0), 0);
    const asked = st.services.reduce((n, x) => n + (x.requested_restarts_24h || 0), 0);
    const restarts = byWatchdog + asked;
    const missing = st.jobs.reduce((n, x) => n + (x.missing_7d || 0), 0);
    const jobsFailed = st.jobs.filter((x) => x.last_run && x.last_run.outcome === 'failed').length;
    const v = st.verify;
    const a = st.agent;
    const stats = [
      stat(a.state, a.state === 'running' ? 'agent, up ' + dur(a.uptime_s || 0) : 'agent: nothing is watching', a.state === 'running' ? 'good' : 'bad'),
      stat(healthy + '/' + st.services.length, 'services healthy' + (paused ? ' (' + paused + ' paused or stopped)' : ''), down ? 'bad' : 'good'),
      stat(restarts, 'restarts in 24 h' + (asked ? ' (' + asked + ' asked for)' : ''), byWatchdog ? 'warn' : ''),
      stat(jobsFailed, 'jobs failed last run', jobsFailed ? 'bad' : ''),
      stat(missing, 'missing job runs (7 d)', missing ? 'bad' : ''),
    ];
    if (v) stats.push(stat(v.fail ? v.fail + ' FAIL' : v.warn ? v.warn + ' WARN' : 'PASS', 'verify (' + v.pass + ' checks pass)', v.fail ? 'bad' : v.warn ? 'warn' : 'good'));
    render('summary', stats);
  }
  function stat(n, label, cls) {
    return h('div', { class: 'stat ' + (cls || '') }, h('div', { class: 'n' }, n), h('div', { class: 'l' }, label));
  }

  function badge(word, cls) {
    return h('span', { class: 'badge ' + (cls || word) }, word);
  }

  function actionButtons(name, kind, st, paused, healthy) {
    const can = new Set(st.actions || []);
    const want = kind === 'service' ? ['start', 'restart', 'pause', 'resume'] : ['pause', 'resume'];
    const btns = want.filter((a) => can.has(a)).filter((a) => (a === 'pause' ? !paused : a === 'resume' ? paused : a === 'start' ? !healthy : true));
    if (!btns.length) return null;
    return h('div', { class: 'actions' }, btns.map((a) =>
      h('button', { type: 'button', 'data-action': a, 'data-name': name, disabled: ui.busy.has(a + ':' + name) }, a === 'pause' ? 'Pause…' : a[0].toUpperCase() + a.slice(1))));
  }

  function serviceItem(x, st) {
    const now = ms(st.now);
    const inst = x.instance;
    const facts = [];
    if (inst && inst.processes > 0) {
      facts.push(h('span', null, 'pid ', h('b', null, inst.leader_pid), inst.leader_alive ? '' : ' (exited, tree lives on)'));
      facts.push(h('span', null, h('b', null, inst.processes), inst.processes === 1 ? ' process' : ' processes'));
      if (inst.uptime_s) facts.push(h('span', null, 'up ', h('b', null, dur(inst.uptime_s))));
      facts.push(h('span', null, h('b', null, bytes(inst.rss_bytes)), ' RSS'));
      facts.push(h('span', null, h('b', null, x.cpu_pct !== undefined ? x.cpu_pct.toFixed(1) + '%' : '…'), ' CPU'));
    } else if (inst) {
      facts.push(h('span', null, 'no process running', inst.leader_pid ? ' (last pid ' + inst.leader_pid + ')' : ''));
    } else {
      facts.push(h('span', null, 'no instance recorded'));
    }
    facts.push(h('span', null, 'every ', h('b', null, x.interval)));
    const lines = [];
    if (x.health) lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'health '), x.health, x.health_at ? h('span', { class: 'k' }, ' · ' + ago(x.health_at, now)) : ''));
    if (x.first_check_by) lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'first check '), ago(x.first_check_by, now)));
    if (x.last_restart) {
      const n = (x.restarts_24h || 0) + (x.requested_restarts_24h || 0);
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'last restart '), ago(x.last_restart, now),
        x.last_restart_by ? h('span', { class: 'k' }, ' by ' + x.last_restart_by) : '',
        x.last_restart_cause ? [h('span', { class: 'k' }, ' — '), x.last_restart_cause] : '',
        n > 1 ? h('span', { class: 'k' }, ' · ' + n + ' in 24 h') : ''));
    }
    if (x.pause) {
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, x.state === 'stopped' ? 'stopped ' : 'paused '),
        x.pause.until ? 'until ' + when(x.pause.until) : 'until resumed', ' — ', x.pause.reason, x.pause.by ? h('span', { class: 'k' }, ' (by ' + x.pause.by + ')') : ''));
    }
    if (x.state === 'given-up') {
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'given up '), 'after ' + x.consecutive_failures + ' failed starts: fix the cause, then Resume'));
    } else if (x.last_cycle && x.last_cycle.outcome !== 'ok') {
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'last cycle '), verdict(x.last_cycle.outcome, x.last_cycle.reason), ' ', h('span', { class: 'k' }, ago(x.last_cycle.at, now)),
        x.last_cycle.message ? [' — ', x.last_cycle.message] : ''));
    }
    const paused = x.state === 'paused' || x.state === 'stopped' || x.state === 'given-up';
    return h('article', { class: 'item', 'data-key': 's:' + x.name },
      h('div', { class: 'item-head' },
        h('button', { type: 'button', class: 'item-name', 'data-detail': x.name }, x.name),
        badge(x.state || 'unknown')),
      h('div', { class: 'facts' }, facts),
      lines,
      actionButtons(x.name, 'service', st, paused, x.state === 'healthy'));
  }

  function jobItem(x, st) {
    const now = ms(st.now);
    const last = x.last_run;
    const lines = [];
    lines.push(h('div', { class: 'facts' },
      h('span', null, h('code', null, x.schedule)), h('span', null, 'in ', h('b', null, x.timezone)), x.external ? h('span', null, 'external') : ''));
    if (x.next_slot) {
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'next '), x.next_in_zone || when(x.next_slot),
        h('span', { class: 'k' }, ' · local ' + when(x.next_slot) + ' · ' + ago(x.next_slot, now))));
    }
    if (last) {
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'last '), verdict(last.outcome, last.reason), ' ',
        h('span', { class: 'k' }, ago(last.at, now) + (x.last_slot ? ' (slot ' + x.last_slot + ')' : '')),
        x.last_message && x.last_message !== last.reason ? [' — ', x.last_message] : ''));
    } else {
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'last '), 'never ran'));
    }
    lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'missing slots (7 d) '),
      x.missing_7d ? h('b', { class: 'st-FAIL' }, x.missing_7d) : '0'));
    if (x.pause) {
      lines.push(h('div', { class: 'line' }, h('span', { class: 'k' }, 'paused '), x.pause.until ? 'until ' + when(x.pause.until) : 'until resumed', ' — ', x.pause.reason));
    }
    return h('article', { class: 'item', 'data-key': 'j:' + x.name },
      h('div', { class: 'item-head' },
        h('button', { type: 'button', class: 'item-name', 'data-detail': x.name }, x.name),
        last ? badge(last.outcome) : badge('never', 'unknown'),
        x.pause ? badge('paused') : ''),
      lines,
      actionButtons(x.name, 'job', st, !!x.pause));
  }

  function agentBlock(st) {
    const a = st.agent;
    const now = ms(st.now);
    const i = st.install;
    let autostart = 'not asked';
    if (i && i.known) autostart = !i.installed ? 'NOT installed: nothing starts the agent after a reboot' :
      (i.mode || '') + ' (' + i.platform + ')' + (i.enabled === false ? ', NOT enabled' : '');
    const kv = [
      ['state', h('span', null, badge(a.state, a.state === 'running' ? 'ok' : 'failed'), ' ', a.why)],
      ['pid', a.pid || '–'],
      ['version', (a.version || '–') + (a.mode ? ' · ' + a.mode : '')],
      ['since', a.started_at ? when(a.started_at) + ' (up ' + dur(a.uptime_s || 0) + ')' : '–'],
      ['heartbeat', a.heartbeat_at ? ago(a.heartbeat_at, now) : '–'],
      ['host boot', a.boot_time ? when(a.boot_time) : '–'],
      ['autostart', autostart],
      ['ledger', st.ledger.ok ? 'ok' : h('span', { class: 'st-FAIL' }, st.ledger.error)],
    ];
    const v = st.verify;
    const verify = v ? [
      h('div', { class: 'sub' }, 'L1 verify'),
      h('div', null, h('b', { class: v.fail ? 'st-FAIL' : v.warn ? 'st-WARN' : '' }, v.pass + ' PASS · ' + v.warn + ' WARN · ' + v.fail + ' FAIL'),
        h('span', { class: 'muted' }, ' · checked ' + ago(v.at, now))),
      v.issues && v.issues.length ? h('ul', { class: 'checks' }, v.issues.map((c) =>
        h('li', null, h('span', { class: 'st-' + c.status }, c.status), ' ', h('b', null, c.name), ' — ', c.evidence))) : null,
    ] : [h('div', { class: 'sub' }, 'L1 verify'), h('div', { class: 'muted' }, st.config_shown === 'state_dir' ? 'not run: the config does not load' : 'checking…')];
    const ch = st.channels || [];
    const channels = [h('div', { class: 'sub' }, 'Notification channels')];
    if (!ch.length) channels.push(h('div', { class: 'muted' }, 'none configured ([[notify]] in the config)'));
    else channels.push(h('table', { class: 'plain' },
      h('thead', null, h('tr', null, ['channel', 'kind', 'last delivery', 'waiting', 'last error'].map((t) => h('th', null, t)))),
      h('tbody', null, ch.map((c) => h('tr', { 'data-key': 'c:' + c.name },
        h('td', null, c.name), h('td', null, c.kind), h('td', null, c.last_delivery ? ago(c.last_delivery, now) : 'never'),
        h('td', null, c.pending), h('td', { class: c.failing_since ? 'st-FAIL' : '' }, c.last_error ? c.last_error + (c.failing_since ? ' (failing since ' + ago(c.failing_since, now) + ')' : '') : '–'))))));
    return h('div', { class: 'agent-grid' },
      h('dl', { class: 'kv' }, kv.map(([k, val]) => [h('dt', null, k), h('dd', null, val)])),
      h('div', null, verify, channels));
  }

  // ---------- timeline ----------

  function renderTimeline() {
    const tl = ui.timeline;
    const box = document.getElementById('timeline');
    if (!tl) return;
    const W = Math.max(box.clientWidth, 240);
    const narrow = W < 560;
    const labelW = narrow ? 78 : 128;
    const x0 = labelW, pw = W - labelW - 6;
    const rowH = 30, axisH = 20;
    const from = ms(tl.from), to = ms(tl.to), span = to - from;
    const X = (t) => x0 + ((t - from) / span) * pw;
    const H = axisH + tl.strips.length * rowH + 2;
    ui.marks.clear();

    const grid = [], ticks = [];
    for (const t of tickTimes(from, to, tl, pw)) {
      const x = X(t);
      grid.push(s('line', { class: 'tl-grid', x1: x, x2: x, y1: axisH - 4, y2: H }));
      ticks.push(s('text', { class: 'tl-tick', x: x, y: axisH - 8, 'text-anchor': 'middle' },
        span > 2 * 86400e3 ? dateFmt.format(t) : hourFmt.format(t)));
    }
    const sleeps = (tl.sleeps || []).map((z) => {
      const a = Math.max(X(ms(z.from)), x0), b = Math.min(X(ms(z.to)), x0 + pw);
      return b > a ? s('rect', { class: 'sleep', x: a, y: axisH, width: Math.max(b - a, 2), height: H - axisH },
        s('title', null, 'host asleep ' + when(z.from) + ' – ' + when(z.to))) : null;
    });
    const rows = tl.strips.map((st, i) => strip(st, i, axisH + i * rowH, rowH, x0, pw, X, tl));
    const nowX = X(ms(ui.state ? ui.state.now : tl.to));
    const svg = s('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Runs of every service and job, ' + ({ fit: 'since the first run', '1h': 'last hour', '24h': 'last 24 hours', '7d': 'last 7 days' })[ui.range] },
      grid, ticks, rows, sleeps,
      s('line', { class: 'tl-now', x1: nowX, x2: nowX, y1: axisH - 4, y2: H }, s('title', null, 'now')));
    const wrap = [svg];
    if (tl.error) wrap.unshift(h('p', { class: 'st-FAIL' }, tl.error));
    render('timeline', wrap);
    // The mark under the tooltip may be gone or another run now.
    if (ui.tipEl) {
      if (ui.tipEl.isConnected && ui.marks.has(ui.tipEl.getAttribute('data-k'))) showTip(ui.tipEl);
      else hideTip();
    }
  }

  // tickTimes: local hours (every 1, 3 or 6) for a day, local midnights for a week.
  function tickTimes(from, to, tl, pw) {
    const out = [];
    const d = new Date(from);
    if (to - from > 2 * 86400e3) {
      d.setHours(24, 0, 0, 0);
      for (; d.getTime() < to; d.setDate(d.getDate() + 1)) out.push(d.getTime());
      return out;
    }
    if (to - from <= 2 * 3600e3) { // an hour: every 5, 10 or 15 minutes
      const step = pw < 420 ? 15 : pw < 800 ? 10 : 5;
      d.setSeconds(0, 0);
      d.setMinutes(d.getMinutes() + 1);
      for (; d.getTime() < to; d.setMinutes(d.getMinutes() + 1)) {
        if (d.getMinutes() % step === 0) out.push(d.getTime());
      }
      return out;
    }
    const step = pw < 420 ? 6 : pw < 800 ? 3 : 2;
    d.setMinutes(0, 0, 0);
    d.setHours(d.getHours() + 1);
    for (; d.getTime() < to; d.setHours(d.getHours() + 1)) {
      if (d.getHours() % step === 0) out.push(d.getTime());
    }
    return out;
  }

  function strip(st, i, y, rowH, x0, pw, X, tl) {
    const cy = y + rowH / 2;
    const kids = [];
    const label = st.name.length > (x0 < 100 ? 10 : 17) ? st.name.slice(0, x0 < 100 ? 9 : 16) + '…' : st.name;
    kids.push(s('text', { class: 'tl-label kind-' + st.kind, x: 0, y: cy + 4, 'data-detail': st.kind === 'agent' ? null : st.name },
      label, s('title', null, st.kind + ' ' + st.name + (st.truncated ? ': only its newest ' + st.marks.length + ' runs of the window are drawn' : ''))));
    kids.push(s('rect', { class: 'tl-strip', x: x0, y: y + 3, width: pw, height: rowH - 6, rx: 5 }));
    // Buckets where something ran merge into one bar, across gaps shorter
    // than about one cycle interval (the rhythm of the cycles, not an
    // outage); what is left blank is a time nothing ran.
    if (st.kind === 'service') {
      const n = st.ran.length, bw = pw / n;
      const bridge = Math.max(1, Math.ceil((1.5 * (st.interval_ms || 0)) / tl.bucket_ms));
      let start = -1, last = -1;
      const flush = () => {
        if (start >= 0) kids.push(s('rect', { class: 'density', x: x0 + start * bw, y: y + rowH - 7, width: Math.max((last + 1 - start) * bw, 1.5), height: 3, rx: 1.5 }));
      };
      st.ran.forEach((c, b) => {
        if (!c) return;
        if (start < 0 || b - last > bridge) { flush(); start = b; }
        last = b;
      });
      flush();
    }
    for (const m of st.missing || []) {
      const k = 'x' + i + ':' + ms(m.at);
      ui.marks.set(k, { strip: st, missing: m });
      kids.push(s('g', { class: 'mark missing', transform: 'translate(' + X(ms(m.at)).toFixed(1) + ',' + cy + ')', tabindex: 0, role: 'button',
        'data-k': k, 'data-detail': st.name, 'data-at': ms(m.at), 'aria-label': st.name + ': missing slot ' + m.in_zone },
      s('circle', { class: 'm-shape m-missing', r: 4.5 })));
    }
    st.marks.forEach((m, j) => {
      const k = i + ':' + j;
      ui.marks.set(k, { strip: st, mark: m });
      const x = X(ms(m.at));
      const at = ms(m.slot) || ms(m.at);
      kids.push(s('g', { class: 'mark ' + m.outcome + (m.restart ? ' restart' : ''), transform: 'translate(' + x.toFixed(1) + ',' + cy + ')', tabindex: 0, role: 'button',
        'data-k': k, 'data-detail': st.kind === 'agent' ? null : st.name, 'data-agent': st.kind === 'agent' ? '1' : null, 'data-at': at, 'data-cause': m.cause || null,
        'aria-label': st.name + ': ' + markWord(st, m) + (m.cause ? ', cause ' + m.cause : '') + ', ' + when(m.at) },
      shape(st, m)));
    });
    // Cause labels beside restarts, newest first, where there is room: to
    // the right of the mark, else to its left, never over another label.
    let free = x0 + pw + 40; // labels placed so far lie right of this
    for (let j = st.marks.length - 1; j >= 0; j--) {
      const m = st.marks[j];
      if (!m.restart || !m.cause) continue;
      const x = X(ms(m.at)), word = causeKind(m.cause), w = word.length * 6.3;
      let left;
      if (x + 8 + w < Math.min(free, x0 + pw + 30) - 6) left = false;
      else if (x - 8 - w > x0 && x - 8 < free - 6) left = true;
      else continue;
      kids.push(s('text', { class: 'm-cause', x: left ? x - 8 : x + 8, y: cy - 4, 'text-anchor': left ? 'end' : 'start' }, word));
      free = left ? x - 8 - w : x + 8;
    }
    return s('g', { class: 'tl-row', 'data-key': st.id }, kids);
  }

  function markWord(st, m) {
    if (m.restart) return 'restart';
    if (st.kind === 'agent' && m.trigger === 'startup') return 'agent started';
    if (st.kind === 'agent' && m.reason === 'resumed') return 'host woke';
    return verdict(m.outcome, m.reason);
  }

  function shape(st, m) {
    if (m.restart) return s('path', { class: 'm-shape m-restart', d: 'M0,-6 L5.5,4.5 L-5.5,4.5 Z' });
    if (st.kind === 'agent' && m.outcome === 'ok') {
      return m.trigger === 'startup' ?
        s('g', null, s('rect', { class: 'm-failed-hit', x: -4, y: -9, width: 8, height: 18 }), s('path', { class: 'm-shape m-agent', d: 'M0,-9 L0,9 M0,-9 L6,-6 L0,-3' })) :
        s('path', { class: 'm-shape m-wake', d: 'M2,-5 A5,5 0 1,0 5,2 A4,4 0 1,1 2,-5 Z' });
    }
    switch (m.outcome) {
      case 'ok': return s('circle', { class: 'm-shape m-ok', r: 4 });
      case 'skipped': return s('path', { class: 'm-shape m-skipped', d: 'M0,-5.5 L5.5,0 L0,5.5 L-5.5,0 Z' });
      case 'failed': return s('g', null, s('rect', { class: 'm-failed-hit', x: -6, y: -6, width: 12, height: 12 }),
        s('path', { class: 'm-shape m-failed', d: 'M-4.5,-4.5 L4.5,4.5 M4.5,-4.5 L-4.5,4.5' }));
      default: return s('circle', { class: 'm-shape m-running', r: 4.5 });
    }
  }

  // ---------- tooltip ----------

  const tip = document.getElementById('tip');
  function showTip(el) {
    const hit = ui.marks.get(el.getAttribute('data-k'));
    if (!hit) return;
    const rows = [];
    if (hit.missing) {
      rows.push(h('div', null, h('b', null, hit.strip.name), ' · missing slot'));
      rows.push(h('div', null, hit.missing.in_zone, ' (local ', when(hit.missing.at), ')'));
      rows.push(h('div', null, 'no row: never triggered — click for why'));
    } else {
      const m = hit.mark;
      rows.push(h('div', null, h('b', null, hit.strip.name), ' · ', markWord(hit.strip, m), m.outcome === 'running' ? ' (running)' : ''));
      rows.push(h('div', null, when(m.at), ' · ', ago(m.at), m.duration_ms ? ' · took ' + durMS(m.duration_ms) : ''));
      rows.push(h('div', null, verdict(m.outcome, m.reason), ' · trigger ', m.trigger, m.by ? ' · by ' + m.by : ''));
      if (m.slot) rows.push(h('div', null, 'slot ', when(m.slot)));
      if (m.cause) rows.push(h('div', { class: 't-row' }, 'cause: ', h('b', null, m.cause)));
      if (m.away_ms) rows.push(h('div', null, 'host away ' + durMS(m.away_ms)));
      if (m.message) rows.push(h('div', { class: 't-row' }, m.message.length > 240 ? m.message.slice(0, 240) + '…' : m.message));
    }
    tip.replaceChildren(...rows);
    tip.hidden = false;
    ui.tipEl = el;
    const r = el.getBoundingClientRect();
    const tw = tip.offsetWidth, th = tip.offsetHeight;
    let left = r.left + r.width / 2 - tw / 2;
    left = Math.max(6, Math.min(left, window.innerWidth - tw - 6));
    let top = r.top - th - 8;
    if (top < 6) top = r.bottom + 8;
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  }
  function hideTip() { tip.hidden = true; ui.tipEl = null; }

  // ---------- detail ----------

  async function openDetail(name, at, agent) {
    ui.detail = { name, at };
    const dlg = document.getElementById('detail');
    document.getElementById('detail-title').textContent = name + (at ? ' · ' + when(new Date(Number(at)).toISOString()) : '');
    render('detail-body', h('p', { class: 'muted' }, 'loading…'));
    if (!dlg.open) dlg.showModal();
    try {
      const d = await api('/api/detail?' + (agent ? 'kind=agent' : 'name=' + encodeURIComponent(name)) + (at ? '&at=' + at : ''));
      if (!ui.detail || ui.detail.name !== name || ui.detail.at !== at) return;
      render('detail-body', detailBody(d));
    } catch (e) {
      render('detail-body', h('p', { class: 'st-FAIL' }, e.message));
    }
  }

  function detailBody(d) {
    const out = [];
    if (d.kind === 'agent' && d.row) {
      const r = d.row, det = r.detail || {};
      const kv = [
        ['run', '#' + r.id + ' · agent'],
        ['verdict', verdict(r.outcome, r.reason)],
        ['trigger', r.trigger],
        ['at', when(r.started_at) + ' (' + ago(r.started_at) + ')'],
      ];
      for (const [k, v] of Object.entries(det)) {
        if (v !== null && typeof v !== 'object') kv.push([k.replace(/_/g, ' '), String(v)]);
      }
      out.push(h('dl', { class: 'kv' }, kv.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])));
      const nested = Object.entries(det).filter(([, v]) => v !== null && typeof v === 'object');
      if (nested.length) out.push(h('pre', { class: 'log' }, JSON.stringify(Object.fromEntries(nested), null, 2)));
    }
    const w = d.why;
    if (w) {
      out.push(h('section', { class: 'why b-' + w.branch },
        h('div', { class: 'sub' }, 'Why — ', w.branch === 'no-row' ? 'no row' : w.branch),
        h('div', { class: 'means' }, w.means),
        w.look_next && w.look_next.length ? h('ul', null, w.look_next.map((l) => h('li', null, l))) : null));
      const r = w.row;
      if (r) {
        const kv = [
          ['run', '#' + r.id + ' · ' + r.job_id],
          ['verdict', verdict(r.outcome, r.reason)],
          ['trigger', r.trigger],
          ['started', when(r.started_at) + ' (' + ago(r.started_at) + ')'],
        ];
        if (r.scheduled_at) kv.push(['slot', when(r.scheduled_at)]);
        if (r.duration_ms !== null && r.duration_ms !== undefined) kv.push(['took', durMS(r.duration_ms)]);
        if (d.cause) kv.push(['cause', h('b', null, d.cause)]);
        const det = r.detail || {};
        if (det.by) kv.push(['by', det.by]);
        if (det.message) kv.push(['message', det.message]);
        if (det.old_instance) kv.push(['old instance', det.old_instance]);
        if (det.pid) kv.push(['new pid', det.pid]);
        if (det.exit) kv.push(['exit', det.exit]);
        if (det.exit_code !== undefined) kv.push(['exit code', det.exit_code]);
        out.push(h('dl', { class: 'kv' }, kv.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])));
      }
    } else if (d.why_error) {
      out.push(h('p', { class: 'st-FAIL' }, d.why_error));
    }
    if (d.pause) out.push(h('p', null, h('b', null, 'Paused '), d.pause.until ? 'until ' + when(d.pause.until) : 'until resumed', ' — ', d.pause.reason, ' (by ', d.pause.by, ')'));
    const sn = d.snapshot;
    if (sn) {
      const kv = [
        ['taken', when(sn.time) + ' (' + ago(sn.time) + ')'],
        ['reason', sn.reason],
        ['phase', sn.phase],
      ];
      if (sn.no_progress_ms >= 0) kv.push(['no healthy verdict for', durMS(sn.no_progress_ms)]);
      if (sn.run_id) kv.push(['run', '#' + sn.run_id]);
      const probes = sn.probes && (sn.probes.second || sn.probes.first);
      if (probes && probes.length) kv.push(['probes', probes.map((p) => p.kind + ' ' + (p.healthy ? 'ok' : p.reason)).join('; ')]);
      if (sn.process) kv.push(['process tree', (sn.process.processes || 0) + ' processes, ' + bytes(sn.process.rss_bytes || 0) + ' RSS, ' + (sn.process.cpu_seconds || 0).toFixed(1) + ' s CPU']);
      const ph = sn.port_holder;
      if (ph) kv.push(['port ' + ph.port + ' held by', ph.pid ? 'pid ' + ph.pid + (ph.exe ? ' ' + ph.exe : '') + (ph.user ? ' (' + ph.user + ')' : '') + (ph.ours ? ', of this service' : ', not of this service') : 'a process svc-ctl cannot see']);
      if (sn.env_names && sn.env_names.length) kv.push(['env names', sn.env_names.join(' ')]);
      out.push(h('section', null, h('div', { class: 'sub' }, d.at ? 'Snapshot before the restart' : 'Latest snapshot (taken before a restart)'),
        h('dl', { class: 'kv' }, kv.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
        sn.transitions && sn.transitions.length ? h('ul', { class: 'checks' }, sn.transitions.slice(-6).map((t) =>
          h('li', null, when(t.at || t.time), ' ', h('b', null, (t.from || '') + ' → ' + (t.to || '')), t.why ? ' — ' + t.why : ''))) : null,
        sn.log_tail && sn.log_tail.length ? [h('div', { class: 'sub' }, 'Its log tail then'), h('pre', { class: 'log' }, sn.log_tail.join('\n'))] : null));
    } else if (d.kind === 'service') {
      out.push(h('section', null, h('div', { class: 'sub' }, 'Snapshot'), h('p', { class: 'muted' }, d.at ?
        'None for this run: a snapshot is written before a restart (' : 'None yet: a snapshot is written before a restart (', h('code', null, d.paths.snapshots), ').')));
    }
    for (const l of d.logs || []) {
      out.push(h('section', null, h('div', { class: 'sub' }, l.name, ' ', h('span', { class: 'muted' }, '(last ' + l.lines.length + ' lines, redacted)')),
        l.error ? h('p', { class: 'st-FAIL' }, l.error) :
          l.lines.length ? h('pre', { class: 'log' }, l.lines.join('\n')) : h('p', { class: 'muted' }, 'empty or not written yet: ', h('code', null, l.path))));
    }
    return out;
  }

  // ---------- actions ----------

  async function runAction(action, name) {
    if (action === 'pause') {
      const dlg = document.getElementById('pause');
      const form = document.getElementById('pause-form');
      form.dataset.name = name;
      document.getElementById('pause-title').textContent = 'Pause ' + name;
      dlg.showModal();
      form.elements.reason.focus();
      return;
    }
    if (action === 'restart' && !window.confirm('Restart ' + name + ' now? Its whole process tree is stopped and started again.')) return;
    await send(action, { name });
  }

  async function send(action, body) {
    const key = action + ':' + body.name;
    ui.busy.add(key);
    if (ui.state) renderState();
    try {
      const r = await act(action, body);
      toast(body.name + ': ' + r.message, r.ok);
    } catch (e) {
      toast(body.name + ': ' + action + ' refused: ' + e.message, false);
    } finally {
      ui.busy.delete(key);
      ui.timelineAt = 0;
      tick();
    }
  }

  let toastTimer = 0;
  function toast(msg, ok) {
    const t = document.getElementById('toast');
    t.textContent = msg;
    t.className = 'toast' + (ok ? '' : ' bad');
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.hidden = true; }, ok ? 5000 : 12000);
  }

  // ---------- events (delegated: rendered nodes carry data only) ----------

  document.addEventListener('click', (ev) => {
    const el = ev.target instanceof Element ? ev.target : null;
    if (!el) return;
    const close = el.closest('[data-close]');
    if (close) { close.closest('dialog').close(); return; }
    const rg = el.closest('[data-range]');
    if (rg) { setRange(rg.getAttribute('data-range')); return; }
    const a = el.closest('[data-action]');
    if (a) { runAction(a.getAttribute('data-action'), a.getAttribute('data-name')); return; }
    const d = el.closest('[data-detail]');
    if (d) { hideTip(); openDetail(d.getAttribute('data-detail'), d.getAttribute('data-at') || ''); return; }
    const ag = el.closest('[data-agent]');
    if (ag) { hideTip(); openDetail('agent', ag.getAttribute('data-at') || '', true); return; }
    const dlg = el.closest('dialog');
    if (dlg && el === dlg) dlg.close(); // a click on the backdrop
  });
  document.addEventListener('keydown', (ev) => {
    const el = ev.target instanceof Element ? ev.target.closest('.mark') : null;
    if (el && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      const d = el.getAttribute('data-detail');
      if (d) openDetail(d, el.getAttribute('data-at') || '');
      else if (el.hasAttribute('data-agent')) openDetail('agent', el.getAttribute('data-at') || '', true);
    }
  });
  for (const evName of ['mouseover', 'focusin']) {
    document.addEventListener(evName, (ev) => {
      const el = ev.target instanceof Element ? ev.target.closest('.mark') : null;
      if (el) showTip(el);
    });
  }
  for (const evName of ['mouseout', 'focusout']) {
    document.addEventListener(evName, (ev) => {
      if (ev.target instanceof Element && ev.target.closest('.mark')) hideTip();
    });
  }
  document.getElementById('pause-form').addEventListener('submit', (ev) => {
    const f = ev.target;
    send('pause', { name: f.dataset.name, for: f.elements.for.value, reason: f.elements.reason.value });
    f.reset();
  });
  document.getElementById('detail').addEventListener('close', () => { ui.detail = null; });

  function setRange(r) {
    if (r === ui.range) return;
    hideTip();
    ui.range = r;
    for (const b of document.querySelectorAll('[data-range]')) b.setAttribute('aria-pressed', String(b.getAttribute('data-range') === r));
    ui.timelineAt = 0;
    tick();
  }

  document.addEventListener('visibilitychange', () => { if (!document.hidden) tick(); });
  let resizeTimer = 0;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(renderTimeline, 60);
  }).observe(document.getElementById('timeline'));

  tick();
})();
