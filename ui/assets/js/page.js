// What the page holds between refreshes, shared by every view.

export const POLL_MS = 2000;
export const TIMELINE_MS = { fit: 2000, '1h': 2000, '24h': 2000, '7d': 10000 };

export const ui = {
  state: null,
  timeline: null,
  range: 'fit', // the history there is: from the first run, up to a day
  timelineAt: 0,
  marks: new Map(), // data-k -> {strip, mark}
  detail: null, // {name, at}
  busy: new Set(), // "action:name" in flight
};
