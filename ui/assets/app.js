// svc-ctl status page. Plain JavaScript, no library, no build step: it asks
// the JSON API of the svc-ctl process that served it (with the token
// js/api.js keeps), renders, and patches the DOM in place every 2 s so
// nothing flickers and hover, focus and scroll survive a refresh.
//
// This file is the entry: the refresh loop, the actions and the page's
// events. Each view is a module of its own under js/.

import { act, api } from './js/api.js';
import { openDetail } from './js/detail.js';
import { renderState } from './js/overview.js';
import { POLL_MS, TIMELINE_MS, ui } from './js/page.js';
import { hideTip, renderTimeline, showTip } from './js/timeline.js';

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
