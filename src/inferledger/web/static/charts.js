// Draws inferledger chart specs (see src/inferledger/report/charts.py) as inline SVG. No library: the specs already
// hold every number in display units; this file only maps them to pixels. Hover a point for its value; click a
// legend entry to hide or show its series.
"use strict";

const Charts = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const W = 560, H = 330, M = { left: 64, right: 16, top: 14, bottom: 46 };

  function el(name, attrs, parent, text) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  // A tick label: 512, 8K, 128K, 0.1; exponent form only past a million (as report/plots.py writes them).
  function number(value) {
    const log2 = Math.log2(value);
    if (value >= 1024 && value < 2 ** 30 && Math.abs(log2 - Math.round(log2)) < 1e-9) return `${value / 1024}K`;
    if (Math.abs(value) >= 1e6) return value.toExponential(0);
    return String(Number(value.toPrecision(3)));
  }

  function scale(axis, low, high, pixelsLow, pixelsHigh) {
    if (axis.log) {
      const a = Math.log(low), b = Math.log(high);
      return (v) => pixelsLow + ((Math.log(v) - a) / (b - a)) * (pixelsHigh - pixelsLow);
    }
    return (v) => pixelsLow + ((v - low) / (high - low)) * (pixelsHigh - pixelsLow);
  }

  function domain(axis, values) {
    let low = Math.min(...values), high = Math.max(...values);
    if (axis.log) {
      low = Math.max(low, 1e-12);
      return [low / 1.25, high * 1.25];
    }
    low = Math.min(0, low);
    return [low, high === low ? low + 1 : high * 1.06];
  }

  function ticks(axis, low, high) {
    const out = [];
    if (axis.log) {
      const base = axis.base || 10;
      for (let p = Math.floor(Math.log(low) / Math.log(base)); base ** p <= high; p++) {
        if (base ** p >= low) out.push(base ** p);
      }
      const every = Math.ceil(out.length / 8);
      return out.filter((_, i) => i % every === 0);
    }
    const raw = (high - low) / 5, power = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw);
    for (let v = Math.ceil(low / step) * step; v <= high; v += step) out.push(v);
    return out;
  }

  function legend(spec, container, svg, entries) {
    const box = document.createElement("div");
    box.className = "legend";
    for (const { name, color, key, dash } of entries) {
      const item = document.createElement("button");
      item.type = "button";
      item.className = "legend-item";
      const fill = dash ? `repeating-linear-gradient(90deg, ${color} 0 3px, transparent 3px 5px)` : color;
      item.innerHTML = `<span class="swatch" style="background:${fill}"></span>`;
      item.appendChild(document.createTextNode(name));
      item.addEventListener("click", () => {
        const hidden = item.classList.toggle("off");
        for (const node of svg.querySelectorAll(`[data-series="${key}"]`)) node.style.display = hidden ? "none" : "";
      });
      box.appendChild(item);
    }
    container.appendChild(box);
  }

  function frame(spec, container) {
    const figure = document.createElement("figure");
    figure.className = "chart";
    figure.dataset.chart = spec.id;
    const caption = document.createElement("figcaption");
    caption.textContent = spec.title;
    figure.appendChild(caption);
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": spec.title });
    figure.appendChild(svg);
    container.appendChild(figure);
    return [figure, svg];
  }

  function note(figure, spec) {
    if (!spec.note) return;
    const p = document.createElement("p");
    p.className = "chart-note";
    p.textContent = spec.note;
    figure.appendChild(p);
  }

  function xy(spec, container) {
    const [figure, svg] = frame(spec, container);
    const series = spec.series.filter((s) => s.points.length);
    const xs = series.flatMap((s) => s.points.map((p) => p[0])).concat(
      (spec.marks || []).filter((m) => m.axis === "x").map((m) => m.value));
    const ys = series.flatMap((s) => s.points.map((p) => p[1]));
    const [x0, x1] = domain(spec.x, xs), [y0, y1] = domain(spec.y, ys);
    const X = scale(spec.x, x0, x1, M.left, W - M.right), Y = scale(spec.y, y0, y1, H - M.bottom, M.top);
    const grid = el("g", { class: "grid" }, svg);
    for (const t of ticks(spec.x, x0, x1)) {
      el("line", { x1: X(t), x2: X(t), y1: M.top, y2: H - M.bottom }, grid);
      el("text", { x: X(t), y: H - M.bottom + 15, "text-anchor": "middle", class: "tick" }, svg, number(t));
    }
    for (const t of ticks(spec.y, y0, y1)) {
      el("line", { x1: M.left, x2: W - M.right, y1: Y(t), y2: Y(t) }, grid);
      el("text", { x: M.left - 6, y: Y(t) + 4, "text-anchor": "end", class: "tick" }, svg, number(t));
    }
    el("text", { x: (M.left + W - M.right) / 2, y: H - 8, "text-anchor": "middle", class: "axis-label" }, svg,
      spec.x.label);
    el("text", { x: 14, y: (M.top + H - M.bottom) / 2, "text-anchor": "middle", class: "axis-label",
      transform: `rotate(-90 14 ${(M.top + H - M.bottom) / 2})` }, svg, spec.y.label);
    for (const mark of spec.marks || []) {
      if (mark.axis !== "x") continue;
      const x = X(mark.value);
      el("line", { x1: x, x2: x, y1: M.top, y2: H - M.bottom, class: "mark" }, svg);
      el("text", { x: x + 4, y: M.top + 4, class: "mark-label", transform: `rotate(90 ${x + 4} ${M.top + 4})` },
        svg, mark.label);
    }
    const entries = [];
    series.forEach((s, index) => {
      const key = `${spec.id}-${index}`;
      const group = el("g", { "data-series": key, class: "series" }, svg);
      entries.push({ name: s.name, color: s.color, key, dash: s.dash });
      if (s.mode === "line") {
        const path = s.points.map((p) => `${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join(" ");
        el("polyline", { points: path, fill: "none", stroke: s.color, "stroke-width": s.plain ? 1.3 : 2,
          "stroke-dasharray": s.dash ? "6 4" : "none", opacity: s.plain ? 0.7 : 1 }, group);
        if (s.plain) return;
      }
      s.points.forEach((p, i) => {
        const large = s.size === "large";
        const shape = large
          ? el("rect", { x: X(p[0]) - 6, y: Y(p[1]) - 6, width: 12, height: 12, fill: s.color, stroke: "#fff",
            transform: `rotate(45 ${X(p[0])} ${Y(p[1])})` }, group)
          : el("circle", { cx: X(p[0]), cy: Y(p[1]), r: s.mode === "line" ? 3 : 4, fill: s.color,
            "fill-opacity": s.mode === "line" ? 1 : 0.75 }, group);
        if (s.annotate && s.labels[i]) {
          el("text", { x: X(p[0]) + 6, y: Y(p[1]) - 5, class: "point-label" }, group, s.labels[i]);
        }
        const label = s.details ? `${s.details[i]}\n` : s.labels ? `${s.labels[i]}\n` : `${s.name}\n`;
        el("title", {}, shape, `${label}${spec.x.label}: ${number(p[0])}\n${spec.y.label}: ${number(p[1])}`);
      });
    });
    legend(spec, figure, svg, entries);
    note(figure, spec);
    return figure;
  }

  function bars(spec, container) {
    const [figure, svg] = frame(spec, container);
    const totals = spec.bars.map((b) => b.segments.reduce((sum, s) => sum + s[1], 0));
    const top = Math.max(...totals, ...spec.marks.map((m) => m.value)) * 1.05;
    const left = 170, X = (v) => left + (v / top) * (W - left - M.right);
    const band = (H - M.top - M.bottom - 30) / Math.max(spec.bars.length, 1);
    for (const t of ticks({ log: false }, 0, top)) {
      el("line", { x1: X(t), x2: X(t), y1: M.top + 24, y2: H - M.bottom, class: "grid-line" }, svg);
      el("text", { x: X(t), y: H - M.bottom + 15, "text-anchor": "middle", class: "tick" }, svg, number(t));
    }
    el("text", { x: (left + W - M.right) / 2, y: H - 8, "text-anchor": "middle", class: "axis-label" }, svg,
      spec.unit);
    const names = [];
    spec.bars.forEach((bar, index) => {
      const y = M.top + 30 + index * band + band * 0.2, height = band * 0.6;
      el("text", { x: left - 8, y: y + height / 2 + 4, "text-anchor": "end", class: "bar-label" }, svg, bar.name);
      let start = 0;
      for (const [name, value] of bar.segments) {
        if (!names.includes(name)) names.push(name);
        const key = `${spec.id}-${names.indexOf(name)}`;
        const group = el("g", { "data-series": key }, svg);
        const rect = el("rect", { x: X(start), y, width: Math.max(0, X(start + value) - X(start)), height,
          fill: spec.colors[name] || "#999" }, group);
        el("title", {}, rect, `${bar.name}\n${name}: ${value.toFixed(2)} ${spec.unit}`);
        if (X(start + value) - X(start) > 34) {
          el("text", { x: (X(start) + X(start + value)) / 2, y: y + height / 2 + 4, "text-anchor": "middle",
            class: "bar-value" }, group, value.toFixed(1));
        }
        start += value;
      }
    });
    spec.marks.forEach((mark, index) => {
      const last = index === spec.marks.length - 1;
      el("line", { x1: X(mark.value), x2: X(mark.value), y1: M.top + 20, y2: H - M.bottom,
        class: last ? "mark solid" : "mark" }, svg);
      el("text", { x: X(mark.value) - 4, y: M.top + 8 + index * 12, "text-anchor": "end", class: "mark-label" }, svg,
        `${mark.label} ${mark.value.toFixed(1)}`);
    });
    legend(spec, figure, svg, names.map((name, i) => ({ name, color: spec.colors[name] || "#999",
      key: `${spec.id}-${i}` })));
    note(figure, spec);
    return figure;
  }

  function draw(spec, container) {
    return spec.kind === "bars" ? bars(spec, container) : xy(spec, container);
  }

  return { draw, number };
})();
