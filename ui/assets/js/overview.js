// The overview: summary, services, jobs and the agent block.

import { h, render } from './dom.js';
import { ago, bytes, dur, ms, timeFmt, verdict, when } from './format.js';
import { ui } from './page.js';

export function renderState() {
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
