// DOM helpers: build elements from data, and patch the page in place
// (morph) so that hover, focus and scroll survive a refresh.

const SVG = 'http://www.w3.org/2000/svg';

// h builds an HTML element: h('div', {class: 'x', 'data-k': 1}, child...).
export function h(tag, attrs, ...kids) {
  return build(document.createElement(tag), attrs, kids);
}
// s builds an SVG element.
export function s(tag, attrs, ...kids) {
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
export function render(id, ...kids) {
  const el = document.getElementById(id);
  const wrap = document.createElement('div');
  build(wrap, null, kids);
  morphChildren(el, Array.from(wrap.childNodes));
}
