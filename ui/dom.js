// Building DOM nodes and formatting values. Every value from the API goes in as text (never as
// HTML): journal bodies, log lines and event fields are whatever a client sent.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** An HTML element: h('td', { class: 'num' }, 'text', otherNode). */
export const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);

/** An SVG element, for charts. */
export const s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

/** Appends children, skipping the absent ones (null, undefined, false) that Node#append would print. */
export const append = (target, ...children) => build(target, {}, children);

export function replace(target, ...children) {
  target.replaceChildren();
  return build(target, {}, children);
}

/** A table: headings and rows of cells; a row may be given as a ready <tr>. */
export function table(headings, rows, attrs = {}) {
  return h('table', attrs,
    h('thead', {}, h('tr', {}, headings.map((c) => h('th', {}, c)))),
    h('tbody', {}, rows.map((row) => (row instanceof Node ? row : h('tr', {}, row.map((c) => (c instanceof Node && c.tagName === 'TD' ? c : h('td', {}, c))))))));
}

const pad = (n, width = 2) => String(n).padStart(width, '0');

/** A virtual time, as the API gives it (RFC 3339, UTC), shown as UTC date and time to the second. */
export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** Seconds as 1d 2h, 3h 4m, 5m 6s or 7s. */
export function fmtDuration(seconds) {
  const sec = Math.max(0, Math.round(seconds));
  const d = Math.floor(sec / 86400);
  const hr = Math.floor((sec % 86400) / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const r = sec % 60;
  if (d) return `${d}d ${hr}h`;
  if (hr) return `${hr}h ${m}m`;
  if (m) return `${m}m ${r}s`;
  return `${r}s`;
}

export const fmtUsd = (n) => (typeof n === 'number' ? `$${n.toFixed(n !== 0 && Math.abs(n) < 0.01 ? 6 : 4)}` : '—');

export const fmtPct = (rate) => (typeof rate === 'number' ? `${(rate * 100).toFixed(1)}%` : '—');

export function fmtNumber(n, digits = 4) {
  if (typeof n !== 'number') return '—';
  return Number.isInteger(n) ? String(n) : n.toPrecision(digits).replace(/\.?0+$/, '');
}

const TERMINAL = new Set(['completed', 'cancelled', 'failed']);
export const isTerminal = (status) => TERMINAL.has(status);

/** A status as a coloured badge; the class names are the statuses (style.css). */
export const badge = (status) => h('span', { class: `badge st-${String(status).replace(/[^a-z_]/g, '')}` }, status ?? '—');
