// tine trace viewer: draws the model that tools/trace_view.py embeds in #trace-data (a trace) and
// #analysis-data (a tine::analysis: the scalability section); either may be null.
// Times are integer nanoseconds from the start of the trace (exact in doubles up to 104 days).
// Everything is drawn on <canvas>, culled to the visible range by binary search, and spans
// narrower than a pixel are merged per pixel column, so a redraw costs one pass over the visible
// spans whatever the zoom. For tests the page writes what it rendered into data-* attributes of
// <body> and ids on the table cells (see docs/trace_viewer.md).
'use strict';
(function () {
  const STATE_COLORS = ['#2f9e44', '#f59f00', '#91a7ff'];  // busy, stealing, asleep
  const UNKNOWN_COLOR = '#f1f3f5';
  const STEAL_COLOR = '#c92a2a';
  const LABEL_W = 150;  // px left of both plots, so their time axes line up
  const RIGHT_PAD = 12;
  const AXIS_H = 26;
  const ARROW_LIMIT = 600;  // more visible steals than this are drawn as marks, not arrows

  const body = document.body;
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- data -------------------------------------------------------------------------------

  function undelta(a) {
    const out = new Float64Array(a.length);
    let t = 0;
    for (let i = 0; i < a.length; i++) out[i] = t += a[i];
    return out;
  }

  function decode(raw) {
    const tracks = raw.spans.map((sp) => {
      const n = sp.d.length;
      if (sp.s.length !== n || sp.k.length !== n) throw new Error('span arrays differ in length');
      const start = undelta(sp.s);
      const end = new Float64Array(n);
      const kind = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        end[i] = start[i] + sp.d[i];
        kind[i] = sp.k.charCodeAt(i) - 48;
      }
      return { start, end, kind, n };
    });
    const st = raw.steals;
    return {
      meta: raw.meta,
      names: raw.names,
      states: raw.states,
      instants: raw.instants,
      counts: raw.counts,
      tracks,
      steals: { t: undelta(st.t), thief: Int32Array.from(st.thief),
                victim: Int32Array.from(st.victim), n: st.t.length },
      endNs: Math.max(1, raw.meta.end_ns),
    };
  }

  // First index i with a[i] > x (a non-decreasing).
  function upperBound(a, n, x) {
    let lo = 0, hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid] > x) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  // First index i with a[i] >= x.
  function lowerBound(a, n, x) {
    let lo = 0, hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid] >= x) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  function summarize(d) {
    const W = d.tracks.length;
    const rows = [];
    for (let w = 0; w < W; w++) {
      const tr = d.tracks[w];
      const ns = [0, 0, 0];
      for (let i = 0; i < tr.n; i++) ns[tr.kind[i]] += tr.end[i] - tr.start[i];
      rows.push({ ns, made: 0, suffered: 0, counts: d.counts[w] || {} });
    }
    const matrix = new Array(W * W).fill(0);  // [thief * W + victim], as stats_report prints it
    for (let i = 0; i < d.steals.n; i++) {
      const th = d.steals.thief[i], v = d.steals.victim[i];
      rows[th].made++;
      rows[v].suffered++;
      matrix[th * W + v]++;
    }
    return { rows, matrix };
  }

  // ---- formatting -------------------------------------------------------------------------

  function fmtInt(n) { return Math.round(n).toLocaleString('en-US'); }

  function fmtDur(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return `${+ns.toFixed(0)} ns`;
    if (a < 1e6) return `${+(ns / 1e3).toPrecision(4)} µs`;
    if (a < 1e9) return `${+(ns / 1e6).toPrecision(4)} ms`;
    return `${+(ns / 1e9).toPrecision(4)} s`;
  }

  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  function tickLabel(ns, step) {
    const unit = step >= 1e9 ? [1e9, 's'] : step >= 1e6 ? [1e6, 'ms'] : step >= 1e3 ? [1e3, 'µs']
                                                                      : [1, 'ns'];
    const digits = Math.max(0, -Math.floor(Math.log10(step / unit[0]) + 1e-9));
    return `${(ns / unit[0]).toFixed(digits)} ${unit[1]}`;
  }

  // ---- canvas helpers ---------------------------------------------------------------------

  function sizeCanvas(canvas, cssH) {
    const dpr = window.devicePixelRatio || 1;
    const cssW = Math.max(400, canvas.parentElement.clientWidth);
    canvas.style.height = `${cssH}px`;
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx, w: cssW, h: cssH };
  }

  // ---- the viewer -------------------------------------------------------------------------

  function Viewer(d) {
    this.d = d;
    this.W = d.tracks.length;
    this.v0 = 0;
    this.v1 = d.endNs;
    this.rowH = Math.max(8, Math.min(24, Math.floor(560 / this.W)));
    this.rowGap = this.rowH >= 16 ? 4 : 1;
    this.showSteals = true;
    this.pending = false;
  }

  Viewer.prototype.plotW = function (cssW) { return cssW - LABEL_W - RIGHT_PAD; };

  Viewer.prototype.layout = function () {
    const pitch = this.rowH + this.rowGap;
    this.tl = sizeCanvas($('timeline'), AXIS_H + this.W * pitch + 8);
    this.ut = sizeCanvas($('util'), 150);
  };

  Viewer.prototype.schedule = function () {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  };

  Viewer.prototype.draw = function () {
    this.drawTimeline();
    this.drawUtilisation();
    $('view-range').textContent =
        `${fmtDur(this.v0)} – ${fmtDur(this.v1)} (${fmtDur(this.v1 - this.v0)} shown)`;
  };

  Viewer.prototype.drawAxis = function (ctx, pw, top, bottom, labels) {
    const span = this.v1 - this.v0;
    const step = niceStep(span / Math.max(2, pw / 110));
    const first = Math.ceil(this.v0 / step) * step;
    ctx.strokeStyle = '#eaeef2';
    ctx.fillStyle = '#656d76';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let t = first; t <= this.v1; t += step) {
      const x = Math.round(LABEL_W + (t - this.v0) / span * pw) + 0.5;
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
      if (labels) {
        const text = tickLabel(t, step), half = ctx.measureText(text).width / 2;
        ctx.fillText(text, Math.min(x, LABEL_W + pw + RIGHT_PAD - half - 1), AXIS_H / 2);
      }
    }
    ctx.stroke();
  };

  Viewer.prototype.drawTimeline = function () {
    const { ctx, w, h } = this.tl;
    const d = this.d, pw = this.plotW(w), pitch = this.rowH + this.rowGap;
    const v0 = this.v0, v1 = this.v1, k = pw / (v1 - v0);
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
    this.drawAxis(ctx, pw, AXIS_H - 4, h, true);
    ctx.strokeStyle = '#d0d7de';
    ctx.beginPath();
    ctx.moveTo(LABEL_W, AXIS_H - 0.5);
    ctx.lineTo(LABEL_W + pw, AXIS_H - 0.5);
    ctx.stroke();

    const cov = new Float32Array(Math.ceil(pw) * 3 + 3);
    ctx.font = `${Math.min(12, this.rowH - 2)}px system-ui, sans-serif`;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (let wk = 0; wk < this.W; wk++) {
      const y = AXIS_H + wk * pitch + this.rowGap;
      ctx.fillStyle = '#1f2328';
      let label = d.names[wk];
      while (label.length > 3 && ctx.measureText(label).width > LABEL_W - 14) {
        label = label.slice(0, -2) + '…';  // drops the last '…' and one more character
      }
      ctx.fillText(label, LABEL_W - 8, y + this.rowH / 2);
      ctx.fillStyle = UNKNOWN_COLOR;
      ctx.fillRect(LABEL_W, y, pw, this.rowH);

      const tr = d.tracks[wk];
      const paths = [new Path2D(), new Path2D(), new Path2D()];
      cov.fill(0);
      let touched = false;
      for (let i = upperBound(tr.end, tr.n, v0); i < tr.n && tr.start[i] < v1; i++) {
        const x0 = (Math.max(tr.start[i], v0) - v0) * k;
        const x1 = (Math.min(tr.end[i], v1) - v0) * k;
        if (x1 - x0 >= 1) {
          paths[tr.kind[i]].rect(LABEL_W + x0, y, x1 - x0, this.rowH);
        } else {
          cov[Math.floor(x0) * 3 + tr.kind[i]] += x1 - x0;
          touched = true;
        }
      }
      if (touched) {
        // A pixel column of spans narrower than a pixel shows each state's share of the column
        // as a stacked bar (busy at the bottom), like a tiny utilisation chart: the dominant
        // state alone would hide, say, 30% stealing everywhere.
        for (let px = 0; px < pw; px++) {
          const sum = cov[px * 3] + cov[px * 3 + 1] + cov[px * 3 + 2];
          if (sum <= 0) continue;
          const scale = this.rowH / Math.max(1, sum);
          let yb = y + this.rowH;
          for (let s = 0; s < 3; s++) {
            const hh = cov[px * 3 + s] * scale;
            if (hh > 0) paths[s].rect(LABEL_W + px, yb - hh, 1, hh);
            yb -= hh;
          }
        }
      }
      for (let s = 0; s < 3; s++) {
        ctx.fillStyle = STATE_COLORS[s];
        ctx.fill(paths[s]);
      }
    }
    if (this.showSteals) this.drawSteals(ctx, pw, k);
  };

  Viewer.prototype.drawSteals = function (ctx, pw, k) {
    const st = this.d.steals, pitch = this.rowH + this.rowGap;
    const lo = lowerBound(st.t, st.n, this.v0), hi = upperBound(st.t, st.n, this.v1);
    const mid = (wk) => AXIS_H + wk * pitch + this.rowGap + this.rowH / 2;
    ctx.strokeStyle = STEAL_COLOR;
    ctx.fillStyle = STEAL_COLOR;
    if (hi - lo <= ARROW_LIMIT) {
      ctx.globalAlpha = 0.85;
      ctx.lineWidth = 1.25;
      const heads = new Path2D();
      ctx.beginPath();
      for (let i = lo; i < hi; i++) {
        const x = LABEL_W + (st.t[i] - this.v0) * k;
        const ya = mid(st.victim[i]), yb = mid(st.thief[i]);
        const dir = yb > ya ? 1 : -1;
        ctx.moveTo(x, ya);
        ctx.lineTo(x, yb - dir * 4);
        heads.moveTo(x, yb);
        heads.lineTo(x - 3.5, yb - dir * 6);
        heads.lineTo(x + 3.5, yb - dir * 6);
        heads.closePath();
        heads.rect(x - 1.5, ya - 1.5, 3, 3);
      }
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fill(heads);
    } else {
      // Too many to read as arrows: a mark at the top of the thief's track, its opacity the
      // number of steals in that pixel column relative to the busiest column.
      const cols = Math.ceil(pw) + 1, counts = new Uint32Array(this.W * cols);
      let max = 0;
      for (let i = lo; i < hi; i++) {
        const j = st.thief[i] * cols + Math.floor((st.t[i] - this.v0) * k);
        max = Math.max(max, ++counts[j]);
      }
      const hh = Math.max(2, Math.round(this.rowH / 5));
      for (let wk = 0; wk < this.W; wk++) {
        const y = AXIS_H + wk * pitch + this.rowGap;
        for (let px = 0; px < cols; px++) {
          const c = counts[wk * cols + px];
          if (!c) continue;
          ctx.globalAlpha = 0.2 + 0.8 * c / max;
          ctx.fillRect(LABEL_W + px, y, 1, hh);
        }
      }
      ctx.globalAlpha = 1;
    }
  };

  Viewer.prototype.drawUtilisation = function () {
    const { ctx, w, h } = this.ut;
    const d = this.d, pw = this.plotW(w), W = this.W;
    const v0 = this.v0, v1 = this.v1;
    const top = 8, bottom = h - 20, ph = bottom - top;
    const B = Math.max(1, Math.floor(pw / 3)), bw = (v1 - v0) / B;
    const acc = new Float64Array(B * 3);
    for (const tr of d.tracks) {
      for (let i = upperBound(tr.end, tr.n, v0); i < tr.n && tr.start[i] < v1; i++) {
        const a = Math.max(tr.start[i], v0), b = Math.min(tr.end[i], v1), s = tr.kind[i];
        const ba = Math.min(B - 1, Math.floor((a - v0) / bw));
        const bb = Math.min(B - 1, Math.floor((b - v0) / bw));
        if (ba === bb) { acc[ba * 3 + s] += b - a; continue; }
        acc[ba * 3 + s] += v0 + (ba + 1) * bw - a;
        for (let j = ba + 1; j < bb; j++) acc[j * 3 + s] += bw;
        acc[bb * 3 + s] += b - (v0 + bb * bw);
      }
    }
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, w, h);
    this.drawAxis(ctx, pw, top, bottom, false);
    const fractions = [0, 0.5, 1];
    ctx.strokeStyle = '#d0d7de';
    ctx.beginPath();
    for (const f of fractions) {
      const y = Math.round(bottom - f * ph) + 0.5;
      ctx.moveTo(LABEL_W - 4, y);
      ctx.lineTo(LABEL_W + pw, y);
    }
    ctx.stroke();
    const cap = bw * W;
    const xs = (j) => LABEL_W + j * pw / B;
    const totals = [0, 0, 0];
    for (let s = 0; s < 3; s++) {
      const p = new Path2D();
      for (let j = 0; j < B; j++) {
        let below = 0;
        for (let q = 0; q < s; q++) below += acc[j * 3 + q];
        const f = acc[j * 3 + s] / cap, fb = below / cap;
        totals[s] += acc[j * 3 + s];
        if (f > 0) p.rect(xs(j), bottom - (fb + f) * ph, xs(j + 1) - xs(j) + 0.3, f * ph);
      }
      ctx.fillStyle = STATE_COLORS[s];
      ctx.fill(p);
    }
    ctx.fillStyle = '#656d76';
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const f of fractions) ctx.fillText(`${f * 100}%`, LABEL_W - 8, bottom - f * ph);
    ctx.textAlign = 'left';
    ctx.fillStyle = '#1f2328';
    const all = (v1 - v0) * W;
    ctx.fillText(`busy ${(100 * totals[0] / all).toFixed(1)}%`, 4, top + 14);
    ctx.fillStyle = '#656d76';
    ctx.fillText(`stealing ${(100 * totals[1] / all).toFixed(1)}%`, 4, top + 30);
    ctx.fillText(`asleep ${(100 * totals[2] / all).toFixed(1)}%`, 4, top + 46);
    ctx.textAlign = 'center';
    ctx.fillText(`${B} bins of ${fmtDur(bw)}`, LABEL_W + pw / 2, h - 8);
  };

  // ---- interaction ------------------------------------------------------------------------

  Viewer.prototype.setView = function (a, b) {
    const full = this.d.endNs, minSpan = Math.min(full, 50);
    let span = Math.max(minSpan, Math.min(full, b - a));
    a = Math.max(0, Math.min(full - span, a));
    this.v0 = a;
    this.v1 = a + span;
    this.schedule();
  };

  Viewer.prototype.zoomAt = function (t, factor) {
    this.setView(t - (t - this.v0) * factor, t + (this.v1 - t) * factor);
  };

  Viewer.prototype.timeAtX = function (x) {
    const pw = this.plotW(this.tl.w);
    return this.v0 + (x - LABEL_W) / pw * (this.v1 - this.v0);
  };

  Viewer.prototype.hover = function (x, y) {
    const tip = $('tooltip');
    const pitch = this.rowH + this.rowGap;
    const wk = Math.floor((y - AXIS_H) / pitch);
    if (x < LABEL_W || wk < 0 || wk >= this.W) { tip.hidden = true; return; }
    const t = this.timeAtX(x);
    const tr = this.d.tracks[wk];
    const i = upperBound(tr.end, tr.n, t);
    let text = `${this.d.names[wk]} · ${fmtDur(t)} · `;
    if (i < tr.n && tr.start[i] <= t) {
      text += `${this.d.states[tr.kind[i]]} ${fmtDur(tr.start[i])} – ${fmtDur(tr.end[i])} ` +
              `(${fmtDur(tr.end[i] - tr.start[i])})`;
    } else {
      text += 'unknown';
    }
    tip.textContent = text;
    tip.hidden = false;
    const maxLeft = this.tl.w - tip.offsetWidth - 4;
    tip.style.left = `${Math.min(maxLeft, x + 12)}px`;
    tip.style.top = `${y + 14}px`;
  };

  Viewer.prototype.bind = function () {
    const c = $('timeline');
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      const x = e.clientX - r.left;
      if (x < LABEL_W) return;
      const dy = e.deltaMode === 1 ? e.deltaY * 30 : e.deltaY;
      this.zoomAt(this.timeAtX(x), Math.exp(dy * 0.0015));
    }, { passive: false });
    let drag = null;
    c.addEventListener('mousedown', (e) => {
      drag = { x: e.clientX, v0: this.v0, v1: this.v1 };
      c.classList.add('dragging');
    });
    window.addEventListener('mouseup', () => { drag = null; c.classList.remove('dragging'); });
    window.addEventListener('mousemove', (e) => {
      const r = c.getBoundingClientRect();
      if (drag) {
        const dt = (e.clientX - drag.x) / this.plotW(this.tl.w) * (drag.v1 - drag.v0);
        this.setView(drag.v0 - dt, drag.v1 - dt);
        $('tooltip').hidden = true;
      } else if (e.target === c) {
        this.hover(e.clientX - r.left, e.clientY - r.top);
      } else {
        $('tooltip').hidden = true;
      }
    });
    c.addEventListener('dblclick', () => this.setView(0, this.d.endNs));
    const centre = () => (this.v0 + this.v1) / 2;
    $('zoom-in').addEventListener('click', () => this.zoomAt(centre(), 0.5));
    $('zoom-out').addEventListener('click', () => this.zoomAt(centre(), 2));
    $('zoom-reset').addEventListener('click', () => this.setView(0, this.d.endNs));
    $('show-steals').addEventListener('change', (e) => {
      this.showSteals = e.target.checked;
      this.schedule();
    });
    window.addEventListener('resize', () => { this.layout(); this.schedule(); });
  };

  // ---- tables -----------------------------------------------------------------------------

  function legend(d) {
    const box = $('legend');
    d.states.forEach((s, i) => {
      const item = el('span', { class: 'item' });
      item.append(el('span', { class: 'swatch', style: `background:${STATE_COLORS[i]}` }), s);
      box.append(item);
    });
    const unk = el('span', { class: 'item' });
    unk.append(el('span', { class: 'swatch', style: `background:${UNKNOWN_COLOR}` }), 'unknown');
    const st = el('span', { class: 'item' });
    st.append(el('span', { class: 'swatch arrow', style: `background:${STEAL_COLOR}` }), 'steal');
    box.append(unk, st);
  }

  function usText(ns) { return (ns / 1000).toFixed(3); }

  function summaryTable(d, sum) {
    const total = d.endNs;
    const inst = d.instants;
    const t = el('table', { id: 'summary-table' });
    const head = el('tr');
    const cols = ['worker', 'busy µs', 'busy', 'stealing µs', 'stealing', 'asleep µs', 'asleep',
                  'unknown', 'steals made', 'steals suffered'].concat(inst);
    cols.forEach((c, i) => head.append(el('th', i === 0 ? { class: 'name' } : {},
                                          c.replace(/_/g, ' '))));
    t.append(head);
    const tot = { ns: [0, 0, 0], made: 0, suffered: 0, counts: {} };
    const addRow = (prefix, name, r, cls, span) => {
      const tr = el('tr', cls ? { class: cls } : {});
      tr.append(el('td', { class: 'name', id: `${prefix}-name` }, name));
      d.states.forEach((s, i) => {
        tr.append(el('td', { id: `${prefix}-${s}-us`, 'data-value': usText(r.ns[i]) },
                     (r.ns[i] / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })));
        const pct = 100 * r.ns[i] / span;
        const cell = el('td', { class: 'bar', id: `${prefix}-${s}-pct`,
                                'data-value': pct.toFixed(3) });
        cell.append(el('span', { class: 'fill',
                                 style: `width:${Math.min(100, pct)}%;` +
                                        `background:${STATE_COLORS[i]}` }),
                    el('span', { class: 'val' }, `${pct.toFixed(1)}%`));
        tr.append(cell);
      });
      const unknown = 100 * Math.max(0, span - r.ns[0] - r.ns[1] - r.ns[2]) / span;
      tr.append(el('td', { id: `${prefix}-unknown-pct`, 'data-value': unknown.toFixed(3) },
                   `${unknown.toFixed(1)}%`));
      tr.append(el('td', { id: `${prefix}-steals-made`, 'data-value': r.made }, fmtInt(r.made)));
      tr.append(el('td', { id: `${prefix}-steals-suffered`, 'data-value': r.suffered },
                   fmtInt(r.suffered)));
      for (const name of inst) {
        const n = r.counts[name] || 0;
        tr.append(el('td', { id: `${prefix}-${name}`, 'data-value': n }, fmtInt(n)));
      }
      t.append(tr);
    };
    sum.rows.forEach((r, w) => {
      addRow(`w${w}`, d.names[w], r, '', total);
      for (let i = 0; i < 3; i++) tot.ns[i] += r.ns[i];
      tot.made += r.made;
      tot.suffered += r.suffered;
      for (const name of inst) tot.counts[name] = (tot.counts[name] || 0) + (r.counts[name] || 0);
    });
    addRow('total', 'all workers', tot, 'total', total * d.tracks.length);
    $('summary').append(t);
    return tot;
  }

  function matrixTable(d, sum) {
    // Rows: thief, columns: victim, the orientation of tine::stats_report::print.
    const W = d.tracks.length;
    let max = 0;
    for (const c of sum.matrix) max = Math.max(max, c);
    const t = el('table', { class: 'matrix', id: 'steal-matrix' });
    const head = el('tr');
    head.append(el('th', { class: 'corner name' }, 'thief ↓  victim →'));
    for (let v = 0; v < W; v++) head.append(el('th', { title: d.names[v] }, String(v)));
    head.append(el('th', {}, 'made'));
    t.append(head);
    for (let th = 0; th < W; th++) {
      const tr = el('tr');
      tr.append(el('td', { class: 'name', title: d.names[th] }, `${th}  ${d.names[th]}`));
      for (let v = 0; v < W; v++) {
        const c = sum.matrix[th * W + v];
        if (v === th) {
          tr.append(el('td', { class: 'diag', id: `steal-v${v}-t${th}`, 'data-value': 0 }, '–'));
          continue;
        }
        const f = max ? c / max : 0;
        const style = c ? `background:rgba(201,42,42,${(0.06 + 0.84 * f).toFixed(3)});` +
                          `color:${f > 0.55 ? '#fff' : '#1f2328'}` : 'color:#bbb';
        tr.append(el('td', { id: `steal-v${v}-t${th}`, 'data-value': c, style }, fmtInt(c)));
      }
      tr.append(el('td', {}, fmtInt(sum.rows[th].made)));
      t.append(tr);
    }
    const foot = el('tr', { class: 'total' });
    foot.append(el('td', { class: 'name' }, 'suffered'));
    for (let v = 0; v < W; v++) foot.append(el('td', {}, fmtInt(sum.rows[v].suffered)));
    foot.append(el('td', { id: 'steal-total', 'data-value': d.steals.n }, fmtInt(d.steals.n)));
    t.append(foot);
    $('matrix').append(t);
  }

  function header(d) {
    const m = d.meta;
    $('meta').textContent = [
      `${m.workers} worker${m.workers === 1 ? '' : 's'}`,
      `${fmtDur(d.endNs)} traced`,
      `${fmtInt(m.events)} events`,
      `${fmtInt(d.steals.n)} steals`,
      `tine ${m.tine_version}`,
      `clock ${m.clock}`,
    ].join(' · ');
    if (m.dropped_events > 0) {
      const w = $('warning');
      w.textContent = `${fmtInt(m.dropped_events)} events were dropped by the trace observer ` +
                      '(buffers full): times and counts below undercount.';
      w.hidden = false;
    }
  }

  // ---- scalability: a tine::analysis --------------------------------------------------------

  // The curves, drawn in this order (the prediction on top). Each is a <path> with one point per
  // P whose value is a positive number (a null, write_json's "not finite", leaves a gap).
  const CURVES = [
    { key: 'ceiling', label: 'ceiling min(P, T1/T∞)', color: '#8c959f', dash: '6 4', width: 2 },
    { key: 'greedy', label: 'greedy bound, plain span', color: '#0969da', dash: '2 3',
      width: 2 },
    { key: 'predicted', label: 'predicted, burdened span', color: '#cf222e', dash: '',
      width: 2.5 },
  ];
  const CHART = { w: 680, h: 400, left: 56, right: 18, top: 14, bottom: 44 };
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const SHOWN_P = [2, 4, 8, 16, 32, 64, 128, 256];  // the speed-up table's columns

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG_NS, tag);
    if (attrs) for (const k in attrs) if (attrs[k] !== '') e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function pageRect(e) {
    const r = e.getBoundingClientRect();
    return [r.left + scrollX, r.top + scrollY, r.width, r.height].map(Math.round).join(',');
  }

  // Plain numbers (parallelism, speed-ups of the header): 4 significant digits, whole above 1000.
  function fmtNum(x) { return Math.abs(x) >= 1000 ? fmtInt(x) : String(+x.toPrecision(4)); }

  // Seconds in the unit that suits them, 4 significant digits (fmtDur's units, from seconds).
  function fmtSeconds(s) {
    const a = Math.abs(s);
    const [k, unit] = a === 0 ? [1, 's'] : a < 1e-6 ? [1e9, 'ns'] : a < 1e-3 ? [1e6, 'µs']
                    : a < 1 ? [1e3, 'ms'] : [1, 's'];
    return `${+(s * k).toPrecision(4)} ${unit}`;
  }

  function fmtStrands(n) {
    return `${n.toLocaleString('en-US', { maximumFractionDigits: 3 })} strand${n === 1 ? '' : 's'}`;
  }

  // A measure in the analysis's units; null (not finite) as a dash.
  function fmtMeasure(a, x) {
    if (x === null) return '–';
    return a.units === 'strands' ? fmtStrands(x) : fmtSeconds(x);
  }

  function valueAttr(x) { return x === null ? 'null' : String(x); }

  function powerLabel(k) { return k >= -3 ? String(Math.pow(2, k)) : `1/${Math.pow(2, -k)}`; }

  // Speed-up against workers P, both on log2 axes: P from 1 to 256, the speed-up from 1 to 256
  // (wider if a value lies outside). Tick labels are centred on their coordinate, so a check can
  // compare them with the curves' points.
  function scalabilityChart(a) {
    const { w, h, left, right, top, bottom } = CHART;
    const pw = w - left - right, ph = h - top - bottom;
    const ps = a.curve.p, maxLogP = Math.log2(ps[ps.length - 1]);
    let lo = 0, hi = maxLogP;
    for (const c of CURVES) {
      for (const v of a.curve[c.key]) {
        if (v === null || !(v > 0)) continue;
        lo = Math.min(lo, Math.floor(Math.log2(v)));
        hi = Math.max(hi, Math.ceil(Math.log2(v)));
      }
    }
    const x = (p) => left + pw * Math.log2(p) / maxLogP;
    const y = (v) => top + ph * (1 - (Math.log2(v) - lo) / (hi - lo));
    const root = svgEl('svg', { id: 'scal-svg', viewBox: `0 0 ${w} ${h}`, width: w, height: h,
                                role: 'img', 'aria-label': 'speed-up against workers P' });
    root.append(svgEl('rect', { width: w, height: h, fill: '#fff' }));
    const grid = svgEl('g', { stroke: '#eaeef2', 'stroke-width': 1 });
    const labels = svgEl('g');
    for (let k = 0; k <= maxLogP; k++) {
      const px = x(Math.pow(2, k));
      grid.append(svgEl('line', { x1: px, y1: top, x2: px, y2: top + ph }));
      labels.append(svgEl('text', { id: `scal-xtick-${k}`, class: 'x-tick', x: px,
                                    y: top + ph + 15, 'text-anchor': 'middle',
                                    'dominant-baseline': 'middle' }, String(Math.pow(2, k))));
    }
    const step = Math.max(1, Math.ceil((hi - lo) / 12));
    for (let k = lo; k <= hi; k += step) {
      const py = y(Math.pow(2, k));
      grid.append(svgEl('line', { x1: left, y1: py, x2: left + pw, y2: py }));
      labels.append(svgEl('text', { id: `scal-ytick-${k < 0 ? 'm' : 'p'}${Math.abs(k)}`,
                                    class: 'y-tick', x: left - 8, y: py, 'text-anchor': 'end',
                                    'dominant-baseline': 'middle' }, powerLabel(k)));
    }
    root.append(grid);
    root.append(svgEl('path', { d: `M${left},${top}V${top + ph}H${left + pw}`, fill: 'none',
                                stroke: '#d0d7de', 'stroke-width': 1 }));
    root.append(labels);
    root.append(svgEl('text', { id: 'scal-xlabel', class: 'axis-title', x: left + pw / 2,
                                y: h - 8, 'text-anchor': 'middle' }, 'workers P'));
    root.append(svgEl('text', { id: 'scal-ylabel', class: 'axis-title', x: 14, y: top + ph / 2,
                                'text-anchor': 'middle',
                                transform: `rotate(-90 14 ${top + ph / 2})` }, 'speed-up'));
    for (const c of CURVES) {
      const vs = a.curve[c.key];
      let d = '', pen = false, n = 0;
      for (let i = 0; i < ps.length; i++) {
        const v = vs[i];
        if (v === null || !(v > 0)) { pen = false; continue; }
        d += `${pen ? 'L' : 'M'}${x(ps[i]).toFixed(2)},${y(v).toFixed(2)}`;
        pen = true;
        n++;
      }
      root.append(svgEl('path', { id: `scal-curve-${c.key}`, class: 'curve', d, fill: 'none',
                                  stroke: c.color, 'stroke-width': c.width,
                                  'stroke-dasharray': c.dash, 'stroke-linejoin': 'round',
                                  'data-points': n }));
    }
    // The prediction's points at the table's P, each with its values as a tooltip.
    const marks = svgEl('g', { fill: CURVES[2].color });
    for (const p of [1].concat(SHOWN_P)) {
      const i = ps.indexOf(p), v = a.curve.predicted[i];
      if (i < 0 || v === null || !(v > 0)) continue;
      const dot = svgEl('circle', { cx: x(p), cy: y(v), r: 3.5 });
      const other = (key) => (a.curve[key][i] === null ? '–' : a.curve[key][i].toFixed(2));
      dot.append(svgEl('title', {}, `P = ${p}: predicted ${v.toFixed(2)}, greedy bound ` +
                                    `${other('greedy')}, ceiling ${other('ceiling')}`));
      marks.append(dot);
    }
    root.append(marks);
    $('scal-chart').append(root);
  }

  function scalabilityLegend() {
    const box = $('scal-legend');
    for (const c of CURVES.slice().reverse()) {
      const item = el('span', { class: 'item', id: `scal-legend-${c.key}` });
      const sw = svgEl('svg', { class: 'line', viewBox: '0 0 26 10', 'aria-hidden': 'true' });
      sw.append(svgEl('line', { x1: 1, y1: 5, x2: 25, y2: 5, stroke: c.color,
                                'stroke-width': c.width, 'stroke-dasharray': c.dash }));
      item.append(sw, c.label);
      box.append(item);
    }
  }

  function measuresTable(a) {
    const t = el('table', { class: 'measures', id: 'scal-measures-table' });
    const head = el('tr');
    head.append(el('th', { class: 'name' }, 'measure'), el('th', {}, 'value'),
                el('th', { class: 'name' }, ''));
    t.append(head);
    const row = (id, label, value, shown, note, noteAttrs) => {
      const tr = el('tr');
      tr.append(el('td', { class: 'name' }, label),
                el('td', { id: `scal-${id}`, 'data-value': valueAttr(value) }, shown),
                el('td', Object.assign({ class: 'note', id: `scal-${id}-note` }, noteAttrs || {}),
                   note || ''));
      t.append(tr);
    };
    const m = (x) => fmtMeasure(a, x);
    const n = (x) => (x === null ? '–' : fmtNum(x));
    row('work', 'work T1', a.work, m(a.work), 'all strands together: one worker, without tine');
    row('span', 'span T∞', a.span, m(a.span),
        'the longest chain of strands that depend on each other');
    row('burdened-span', 'burdened span', a.burdened_span, m(a.burdened_span),
        'the span with one steal charged to each fork\'s continuation');
    row('steal-cost', 'steal cost', a.steal_cost, m(a.steal_cost),
        a.steal_cost_measured ? 'measured on this machine' : 'as given (not measured)',
        { 'data-value': String(a.steal_cost_measured) });
    row('parallelism', 'parallelism T1/T∞', a.parallelism, n(a.parallelism),
        'no number of workers gives a greater speed-up');
    row('burdened-parallelism', 'burdened parallelism', a.burdened_parallelism,
        n(a.burdened_parallelism), 'T1 / burdened span');
    row('forks', 'forks', a.forks, fmtInt(a.forks));
    row('joins', 'joins', a.joins, fmtInt(a.joins),
        'explicit joins of frames that forked');
    row('critical-strands', 'strands on the longest chain', a.critical_strands,
        fmtInt(a.critical_strands));
    const share = a.longest_strand !== null && a.span !== null && a.span > 0
        ? `${+(100 * a.longest_strand / a.span).toPrecision(3)}% of the span` : '';
    row('longest-strand', 'its longest strand', a.longest_strand, m(a.longest_strand), share);
    row('runs', 'runs', a.runs, fmtInt(a.runs),
        a.runs > 1 ? 'each strand\'s shortest time over the runs' : '');
    row('units', 'units', a.units, a.units,
        a.units === 'strands' ? 'each strand counts 1: the measures are numbers of strands'
                              : 'times measured in seconds');
    $('scal-measures').append(t);
  }

  function speedupTable(a) {
    const t = el('table', { class: 'speedups', id: 'scal-speedup-table' });
    const head = el('tr');
    head.append(el('th', { class: 'name' }, 'workers P'));
    for (const p of SHOWN_P) head.append(el('th', { id: `scal-p-${p}` }, String(p)));
    t.append(head);
    for (const c of CURVES.slice().reverse()) {
      const tr = el('tr');
      tr.append(el('td', { class: 'name' }, c.label));
      for (const p of SHOWN_P) {
        const v = a.curve[c.key][a.curve.p.indexOf(p)];
        tr.append(el('td', { id: `scal-${c.key}-p${p}`, 'data-value': valueAttr(v) },
                     v === null ? '–' : v.toFixed(2)));
      }
      t.append(tr);
    }
    $('scal-speedups').append(t);
  }

  function regionsTable(a) {
    const box = $('scal-regions');
    if (!a.regions.length) {
      box.append(el('p', { class: 'none', id: 'scal-no-regions' },
                    'none (the analysed code marked no tine::region)'));
      return;
    }
    const t = el('table', { id: 'scal-regions-table' });
    const head = el('tr');
    ['region', 'runs', 'work', 'span', 'burdened span', 'parallelism'].forEach(
        (c, i) => head.append(el('th', i === 0 ? { class: 'name' } : {}, c)));
    t.append(head);
    a.regions.forEach((r, i) => {
      const tr = el('tr');
      const id = (k) => `scal-region-${i}-${k}`;
      const par = r.work !== null && r.span !== null && r.span > 0 ? r.work / r.span : null;
      tr.append(el('td', { class: 'name', id: id('name') }, r.name),
                el('td', { id: id('count'), 'data-value': r.count }, fmtInt(r.count)));
      for (const k of ['work', 'span', 'burdened_span']) {
        tr.append(el('td', { id: id(k.replace('_', '-')), 'data-value': valueAttr(r[k]) },
                     fmtMeasure(a, r[k])));
      }
      tr.append(el('td', { id: id('parallelism'), 'data-value': valueAttr(par) },
                   par === null ? '–' : fmtNum(par)));
      t.append(tr);
    });
    box.append(t);
  }

  function problemsList(a) {
    const box = $('scal-problems');
    if (!a.problems.length) {
      box.append(el('p', { class: 'none', id: 'scal-no-problems' },
                    'none: every region was measured'));
      return;
    }
    const ul = el('ul', { class: 'problems' });
    a.problems.forEach((p, i) => ul.append(el('li', { id: `scal-problem-${i}` }, p)));
    box.append(ul);
  }

  // The scalability section; alone (no trace) it also fills the page's header.
  function scalability(a, alone) {
    const sec = $('scalability');
    sec.hidden = false;
    const name = $('scal-name');
    name.append(el('span', { id: 'scal-name-text' }, a.name),
                ': speed-up on P workers predicted from its work and span');
    scalabilityLegend();
    scalabilityChart(a);
    measuresTable(a);
    speedupTable(a);
    regionsTable(a);
    problemsList(a);
    if (alone) {
      const m = (x) => fmtMeasure(a, x);
      $('meta').textContent = [
        a.name,
        `${fmtInt(a.runs)} run${a.runs === 1 ? '' : 's'}`,
        `work ${m(a.work)}`,
        `span ${m(a.span)}`,
        `parallelism ${a.parallelism === null ? '–' : fmtNum(a.parallelism)}`,
        `units: ${a.units}`,
      ].join(' · ');
    }
    body.setAttribute('data-analysis', '1');
    body.setAttribute('data-scalability-rect', pageRect($('scal-svg')));
  }

  // A repeatable cost measurement for docs/tests: open the page with #bench.
  function bench(v) {
    const full = v.d.endNs, times = [];
    const views = [[0, full], [full * 0.4, full * 0.6], [full * 0.49, full * 0.51],
                   [full * 0.1, full * 0.9]];
    for (let r = 0; r < 5; r++) {
      for (const [a, b] of views) {
        v.v0 = a; v.v1 = b;
        const t0 = performance.now();
        v.draw();
        times.push(performance.now() - t0);
      }
    }
    v.v0 = 0; v.v1 = full;
    v.draw();
    times.sort((a, b) => a - b);
    body.setAttribute('data-bench-draw-median-ms', times[times.length >> 1].toFixed(1));
    body.setAttribute('data-bench-draw-max-ms', times[times.length - 1].toFixed(1));
  }

  // The check's test of the controls (open the page with #interact): synthetic wheel, drag,
  // hover, button and double-click events must change the view as a user's would. Writes "ok" or
  // what went wrong to data-interaction on <body>, and leaves the whole trace in view.
  function interact(v) {
    const c = $('timeline'), r = c.getBoundingClientRect(), bad = [];
    const x = r.left + LABEL_W + v.plotW(v.tl.w) / 2;
    const y = r.top + AXIS_H + v.rowGap + v.rowH / 2;
    const at = (dx) => ({ clientX: x + dx, clientY: y, bubbles: true, cancelable: true });
    const span = () => v.v1 - v.v0;
    const full = v.d.endNs;
    const zoomable = full >= 1000;  // setView keeps at least 50 ns in view
    const expect = (ok, what) => { if (!ok) bad.push(what); };

    c.dispatchEvent(new WheelEvent('wheel', Object.assign({ deltaY: -400 }, at(0))));
    expect(!zoomable || span() < 0.7 * full,
           `wheel did not zoom in (${span()} of ${full} ns shown)`);
    const v0 = v.v0, s0 = span();
    c.dispatchEvent(new MouseEvent('mousedown', at(0)));
    window.dispatchEvent(new MouseEvent('mousemove', at(100)));
    window.dispatchEvent(new MouseEvent('mouseup', at(100)));
    expect(!zoomable || v.v0 < v0 && Math.abs(span() - s0) < 1e-6 * full + 1,
           `dragging right did not pan to earlier times (${v0} -> ${v.v0})`);
    c.dispatchEvent(new MouseEvent('mousemove', at(0)));
    const tip = $('tooltip');
    expect(!tip.hidden && tip.textContent.startsWith(v.d.names[0]),
           `hovering track 0 showed no tooltip for it (${JSON.stringify(tip.textContent)})`);
    const s1 = span();
    $('zoom-out').click();
    expect(span() > 1.5 * s1 || span() === full, 'the zoom-out button did not zoom out');
    $('zoom-reset').click();
    expect(v.v0 === 0 && v.v1 === full, 'the reset button did not show the whole trace');
    $('zoom-in').click();
    expect(!zoomable || span() < 0.75 * full, 'the zoom-in button did not zoom in');
    c.dispatchEvent(new MouseEvent('dblclick', at(0)));
    expect(v.v0 === 0 && v.v1 === full, 'double-click did not show the whole trace');
    v.draw();
    body.setAttribute('data-interaction', bad.length ? bad.join('; ') : 'ok');
  }

  function main() {
    const t0 = performance.now();
    const raw = JSON.parse($('trace-data').textContent);
    const an = JSON.parse($('analysis-data').textContent);
    const tParsed = performance.now();
    if (raw !== null) showTrace(raw);
    else document.querySelectorAll('section.trace-panel').forEach((s) => { s.hidden = true; });
    if (an !== null) scalability(an, raw === null);
    body.setAttribute('data-parse-ms', (tParsed - t0).toFixed(1));
    body.setAttribute('data-render-ms', (performance.now() - t0).toFixed(1));
    body.setAttribute('data-tine-rendered', '1');
  }

  function showTrace(raw) {
    const d = decode(raw);
    const sum = summarize(d);
    header(d);
    legend(d);
    const tot = summaryTable(d, sum);
    matrixTable(d, sum);
    const v = new Viewer(d);
    v.layout();
    v.draw();
    v.bind();
    body.setAttribute('data-tracks', String(d.tracks.length));
    body.setAttribute('data-steals', String(d.steals.n));
    body.setAttribute('data-busy-us', usText(tot.ns[0]));
    body.setAttribute('data-spans', String(d.tracks.reduce((a, tr) => a + tr.n, 0)));
    // Where the check looks for its colours.
    body.setAttribute('data-timeline-rect', pageRect($('timeline')));
    if (location.hash === '#bench') bench(v);
    if (location.hash === '#interact') interact(v);
  }

  try {
    main();
  } catch (e) {
    const box = $('error');
    box.textContent = `The trace viewer failed: ${e && e.message ? e.message : e}`;
    box.hidden = false;
    body.setAttribute('data-tine-rendered', '0');
    body.setAttribute('data-tine-error', String(e && e.message ? e.message : e));
  }
})();
