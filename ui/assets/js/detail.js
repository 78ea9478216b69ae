// The detail dialog: why, the snapshot and the log tails of one service,
// job or agent run.

import { api } from './api.js';
import { h, render } from './dom.js';
import { ago, bytes, durMS, verdict, when } from './format.js';
import { ui } from './page.js';

export async function openDetail(name, at, agent) {
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
