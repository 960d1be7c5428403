// Plain SVG charts: a line chart per training metric, the lifecycle timeline, the pass-rate bars.
// Each draws into a fixed viewBox that CSS scales to the column's width.

import { fmtDuration, fmtNumber, fmtPct, s } from './dom.js';

const M = { top: 22, right: 14, bottom: 26, left: 52 };

function extent(values) {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  return [lo, hi];
}

/**
 * One metric per step: `points` are {x: step, y: value, generation}. `breaks` are steps where a
 * new generation began (after a recovery), drawn as dashed verticals.
 */
export function lineChart({ title, metric, points, breaks = [], width = 420, height = 190 }) {
  const svg = s('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title, 'data-metric': metric });
  svg.append(s('text', { x: M.left, y: 14, class: 'chart-title' }, title));
  if (points.length === 0) {
    svg.append(s('text', { x: width / 2, y: height / 2, class: 'chart-empty', 'text-anchor': 'middle' }, 'no steps yet'));
    return svg;
  }
  const [x0, x1] = points.length === 1 ? [points[0].x - 1, points[0].x + 1] : [points[0].x, points.at(-1).x];
  const [y0, y1] = extent(points.map((p) => p.y));
  const iw = width - M.left - M.right;
  const ih = height - M.top - M.bottom;
  const sx = (x) => M.left + ((x - x0) / (x1 - x0)) * iw;
  const sy = (y) => M.top + ih - ((y - y0) / (y1 - y0)) * ih;

  for (const tick of [y0, (y0 + y1) / 2, y1]) {
    svg.append(s('line', { x1: M.left, x2: M.left + iw, y1: sy(tick), y2: sy(tick), class: 'grid' }));
    svg.append(s('text', { x: M.left - 6, y: sy(tick) + 4, 'text-anchor': 'end', class: 'tick' }, fmtNumber(tick, 3)));
  }
  svg.append(s('text', { x: M.left, y: height - 8, class: 'tick' }, `step ${x0}`));
  svg.append(s('text', { x: M.left + iw, y: height - 8, 'text-anchor': 'end', class: 'tick' }, `step ${x1}`));
  for (const step of breaks) {
    const x = sx(step - 0.5);
    svg.append(s('line', { x1: x, x2: x, y1: M.top, y2: M.top + ih, class: 'break' }));
    svg.append(s('text', { x: x + 3, y: M.top + 10, class: 'tick break-label' }, 'recovered'));
  }
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${sx(p.x).toFixed(1)} ${sy(p.y).toFixed(1)}`).join(' ');
  svg.append(s('path', { d, class: 'line', 'data-points': points.length }));
  // Dots only while they stay apart; a title on each says step and value.
  if (points.length <= 120) {
    for (const p of points) {
      svg.append(s('circle', { cx: sx(p.x), cy: sy(p.y), r: 2.6, class: `dot gen-${Math.min(p.generation ?? 1, 6)}` },
        s('title', {}, `step ${p.x}: ${fmtNumber(p.y, 6)} (generation ${p.generation ?? 1})`)));
    }
  }
  return svg;
}

/**
 * The lifecycle over virtual time: `segments` {from, to, status, rule?} in ms, `markers` {at,
 * label, kind, rule?} (recovered, phase, step), from `start` to `end` (ms); `rule` names the
 * workload rule whose intervention began the segment or the recovery.
 */
export function timeline({ start, end, segments, markers, width = 1000, height = 104 }) {
  const svg = s('svg', { class: 'timeline', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'lifecycle timeline' });
  const left = 8;
  const right = width - 8;
  const span = Math.max(end - start, 1000);
  const sx = (t) => left + ((t - start) / span) * (right - left);
  const barY = 30;
  const barH = 22;
  for (const seg of segments) {
    const x = sx(seg.from);
    const w = Math.max(sx(seg.to) - x, 1.5);
    svg.append(s('rect', { x, y: barY, width: w, height: barH, class: `seg st-${seg.status}`, 'data-status': seg.status, 'data-rule': seg.rule },
      s('title', {}, `${seg.status}: ${fmtDuration((seg.to - seg.from) / 1000)}${seg.rule ? `, by workload rule ${seg.rule}` : ''}`)));
    if (w > 64) svg.append(s('text', { x: x + 4, y: barY + 15, class: 'seg-label' }, seg.status));
  }
  // Phase labels take the first of two rows where they do not overprint the one before.
  const lastLabelX = [-Infinity, -Infinity];
  for (const m of markers) {
    const x = sx(m.at);
    if (m.kind === 'recovered') {
      svg.append(s('line', { x1: x, x2: x, y1: 6, y2: barY + barH + 6, class: 'marker-recovered', 'data-rule': m.rule }));
      svg.append(s('text', { x: x + 3, y: 16, class: 'marker-label recovered' }, m.label));
    } else if (m.kind === 'phase') {
      const row = lastLabelX.findIndex((last) => x - last > 80);
      svg.append(s('line', { x1: x, x2: x, y1: barY + barH, y2: barY + barH + 10 + Math.max(row, 0) * 13, class: 'marker-phase' }));
      if (row !== -1) {
        const nearEnd = x > right - 80;
        svg.append(s('text', { x: nearEnd ? x - 2 : x + 2, y: barY + barH + 21 + row * 13, 'text-anchor': nearEnd ? 'end' : 'start', class: 'marker-label' }, m.label));
        lastLabelX[row] = x;
      }
    } else {
      svg.append(s('line', { x1: x, x2: x, y1: barY + barH - 5, y2: barY + barH, class: 'marker-step' }));
    }
  }
  for (const f of [0.25, 0.5, 0.75]) {
    svg.append(s('text', { x: sx(start + f * span), y: height - 4, 'text-anchor': 'middle', class: 'tick' }, `+${fmtDuration((f * span) / 1000)}`));
  }
  svg.append(s('text', { x: left, y: height - 4, class: 'tick' }, '+0s'));
  svg.append(s('text', { x: right, y: height - 4, 'text-anchor': 'end', class: 'tick' }, `+${fmtDuration(span / 1000)}`));
  return svg;
}

/** Baseline against final pass rate, as two horizontal bars. */
export function passRates({ baseline, evaluation, width = 420, height = 86 }) {
  const svg = s('svg', { class: 'passrates', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'pass rates' });
  const rows = [['baseline', baseline], ['final', evaluation]];
  const left = 70;
  const w = width - left - 60;
  rows.forEach(([label, rate], i) => {
    const y = 10 + i * 36;
    svg.append(s('text', { x: 0, y: y + 15, class: 'tick' }, label));
    svg.append(s('rect', { x: left, y, width: w, height: 20, class: 'bar-bg' }));
    if (typeof rate === 'number') svg.append(s('rect', { x: left, y, width: Math.max(w * rate, 1), height: 20, class: `bar bar-${label}` }));
    svg.append(s('text', { x: left + w + 6, y: y + 15, class: 'tick' }, fmtPct(rate)));
  });
  return svg;
}
