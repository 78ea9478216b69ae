// Formatting: times, ages, durations and sizes as the page prints them.

export const ms = (t) => (t ? Date.parse(t) : 0);
export function ago(t, now) {
  const d = Math.round(((now || Date.now()) - ms(t)) / 1000);
  if (!t || Number.isNaN(d)) return '–';
  if (d < 0) return 'in ' + dur(-d);
  if (d < 5) return 'just now';
  return dur(d) + ' ago';
}
export function dur(sec) {
  sec = Math.round(sec);
  if (sec < 60) return sec + ' s';
  if (sec < 3600) return Math.floor(sec / 60) + ' min' + (sec < 600 && sec % 60 ? ' ' + (sec % 60) + ' s' : '');
  if (sec < 86400) return Math.floor(sec / 3600) + ' h' + (sec % 3600 >= 60 ? ' ' + Math.floor((sec % 3600) / 60) + ' min' : '');
  return Math.floor(sec / 86400) + ' d' + (sec % 86400 >= 3600 ? ' ' + Math.floor((sec % 86400) / 3600) + ' h' : '');
}
export function durMS(m) {
  if (m === undefined || m === null) return '';
  return m < 1000 ? m + ' ms' : m < 60000 ? (m / 1000).toFixed(1) + ' s' : dur(m / 1000);
}
export const timeFmt = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
const dayFmt = new Intl.DateTimeFormat([], { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hour12: false });
export const hourFmt = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit', hour12: false });
export const dateFmt = new Intl.DateTimeFormat([], { weekday: 'short', day: 'numeric' });
export function when(t) {
  const x = ms(t);
  if (!x) return '–';
  return Date.now() - x < 20 * 3600e3 && new Date(x).getDate() === new Date().getDate() ? timeFmt.format(x) : dayFmt.format(x);
}
export function bytes(n) {
  if (!n) return '0 B';
  const u = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (n >= 100 || i === 0 ? Math.round(n) : n.toFixed(1)) + ' ' + u[i];
}
export const causeKind = (c) => (c || '').split(':')[0];
export const verdict = (o, r) => (r ? o + '/' + r : o);
