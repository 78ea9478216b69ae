// The timeline: one strip per service and job, one mark per run, and the
// tooltip over a mark.

import { h, render, s } from './dom.js';
import { ago, causeKind, dateFmt, durMS, hourFmt, ms, verdict, when } from './format.js';
import { ui } from './page.js';

export function renderTimeline() {
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

const tip = document.getElementById('tip');
export function showTip(el) {
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
export function hideTip() { tip.hidden = true; ui.tipEl = null; }
