// The page of `inferledger serve`, and of the HTML report (`inferledger report`), which embeds its data instead of
// asking the API. Every number shown is read from the document `request --json` prints (POST /api/request); the
// charts come as specs from POST /api/charts. Keys this file does not know (a realistic estimate, parallelism) are
// listed under "More of the account" as they come.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const DEFAULT_MODEL = "meta-llama/Llama-3.1-8B", DEFAULT_GPU = "h100-sxm";
  const KNOWN = new Set(["model", "accelerator", "precision", "kv_precision", "workload", "prefill", "decode",
    "ttft_seconds", "total_seconds", "tokens_per_second", "memory", "simplified", "differences", "warnings",
    "operators"]);
  const MAX_CONFIG_BYTES = 1 << 20;
  let uploadedConfig = null, sequence = 0, timer = null;

  // Units as the CLI prints them (report/units.py): seconds to s/ms/us, bytes in GB = 1e9.
  function seconds(value) {
    if (value === null || value === undefined) return "–";
    if (value >= 1) return `${value.toFixed(3)} s`;
    if (value >= 1e-3) return `${(value * 1e3).toFixed(2)} ms`;
    return `${(value * 1e6).toFixed(1)} us`;
  }
  const gb = (bytes) => (bytes === null || bytes === undefined ? "–" : `${(bytes / 1e9).toFixed(2)} GB`);
  const count = (n) => (n === null || n === undefined ? "–" : Math.round(n).toLocaleString("en-US"));
  const tera = (flops) => `${(flops / 1e12).toFixed(2)} TFLOP`;
  const ratio = (x) => (x === null || x === undefined ? "–" : x.toLocaleString("en-US", { maximumFractionDigits: 1 }));
  function plain(value) {
    if (typeof value === "number") return Number.isInteger(value) ? count(value) : Number(value.toPrecision(4)).toString();
    if (value === null) return "–";
    return String(value);
  }

  function setStatus(text, error) {
    $("status").textContent = text;
    $("status").classList.toggle("error", Boolean(error));
  }

  async function api(path, body, raw) {
    const options = body === undefined ? {} : {
      method: "POST", body: raw ? body : JSON.stringify(body),
      headers: { "Content-Type": raw ? "application/octet-stream" : "application/json" },
    };
    const response = await fetch(path, options);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  }

  function fill(select, items, chosen) {
    select.innerHTML = "";
    for (const [value, label] of items) {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = label;
      option.selected = value === chosen;
      select.appendChild(option);
    }
  }

  function values() {
    const out = {};
    const hub = $("hub").value.trim();
    if (hub) out.model = hub;
    else if (uploadedConfig) out.config = uploadedConfig;
    else out.model = $("model").value;
    out.gpu = $("gpu").value;
    for (const name of ["precision", "kv_precision"]) if ($(name).value) out[name] = $(name).value;
    for (const name of ["isl", "osl", "batch", "context", "overhead_ms", "gpu_memory_utilization"]) {
      const text = $(name).value.trim();
      if (text !== "") out[name] = Number(text);
    }
    return out;
  }

  function row(table, cells, header) {
    const tr = document.createElement("tr");
    for (const cell of cells) {
      const td = document.createElement(header ? "th" : "td");
      td.textContent = cell;
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }

  function renderAccount(doc) {
    const p = doc.prefill, d = doc.decode, s = doc.simplified, m = doc.memory, r = doc.realistic;
    const table = $("account");
    table.innerHTML = "";
    const head = document.createElement("thead");
    row(head, ["", "floor (roofline)", "seed's simplified", ...(r ? ["realistic"] : [])], true);
    table.appendChild(head);
    const body = document.createElement("tbody");
    const rows = [
      ["prefill FLOPs", tera(p.flops), tera(s.prefill_flops)],
      ["prefill bytes moved", gb(p.bytes), ""],
      ["prefill intensity (FLOP/byte)", `${ratio(p.intensity)} · ${p.bound} bound`, ""],
      ["TTFT", seconds(p.seconds), seconds(s.prefill_seconds)],
      ["decode bytes per step", gb(d.bytes_per_step), ""],
      ["· weights read per step", gb(d.weight_bytes_per_step), ""],
      ["· KV cache read per step", gb(d.kv_read_bytes_per_step), ""],
      ["decode intensity (FLOP/byte)", `${ratio(d.intensity)} · ${d.bound} bound`, ""],
      ["time per output token", seconds(d.seconds_per_token), seconds(s.decode_seconds_per_token)],
      ["first / last decode step", `${seconds(d.first_token_seconds)} / ${seconds(d.last_token_seconds)}`, ""],
      ["decode, all tokens", seconds(d.seconds), seconds(s.decode_seconds)],
      ["end to end", seconds(doc.total_seconds), seconds(s.total_seconds)],
      ["KV cache per token", m.kv_bytes_per_token === null ? "–" : `${count(m.kv_bytes_per_token)} bytes`, ""],
      ["KV cache budget", gb(m.kv_budget_bytes), ""],
      ["cached tokens that fit", count(m.kv_tokens_capacity), ""],
    ];
    if (r) { // the realistic estimate beside the floor, when the document carries one
      const real = { TTFT: r.prefill?.seconds, "time per output token": r.decode?.seconds_per_token,
        "decode, all tokens": r.decode?.seconds, "end to end": r.total_seconds };
      for (const cells of rows) cells.push(cells[0] in real ? seconds(real[cells[0]]) : "");
    }
    for (const cells of rows) row(body, cells);
    table.appendChild(body);
    listItems($("differences"), doc.differences);
  }

  function listItems(list, texts) {
    list.innerHTML = "";
    for (const text of texts || []) {
      const li = document.createElement("li");
      li.textContent = text;
      list.appendChild(li);
    }
  }

  // Keys other branches add to the document (realistic, parallel, ...) flow through as a flat table.
  function renderExtra(doc) {
    const extra = Object.keys(doc).filter((key) => !KNOWN.has(key));
    $("extra-panel").hidden = extra.length === 0;
    const box = $("extra");
    box.innerHTML = "";
    const table = document.createElement("table");
    const walk = (prefix, value) => {
      if (value && typeof value === "object" && !Array.isArray(value)) {
        for (const [key, inner] of Object.entries(value)) walk(prefix ? `${prefix}.${key}` : key, inner);
      } else {
        row(table, [prefix, Array.isArray(value) ? value.map(plain).join(", ") : plain(value)]);
      }
    };
    for (const key of extra) walk(key, doc[key]);
    box.appendChild(table);
  }

  function renderOperators(doc) {
    const box = $("operators");
    box.innerHTML = "";
    for (const phase of ["prefill", "decode"]) {
      const title = document.createElement("h3");
      title.textContent = phase === "prefill" ? "Prefill" : "One decode step (middle context)";
      box.appendChild(title);
      const table = document.createElement("table");
      table.id = `operators-${phase}`;
      row(table, ["operator", "block", "×", "GFLOP", "MB moved", "FLOP/byte", "bound", "time × count"], true);
      for (const r of (doc.operators || {})[phase] || []) {
        const moved = r.weight_bytes + r.activation_bytes + r.kv_read_bytes + r.kv_write_bytes;
        row(table, [r.operator, r.block, String(r.count), (r.flops / 1e9).toFixed(3), (moved / 1e6).toFixed(2),
          r.intensity === null ? "–" : ratio(r.intensity), r.bound, seconds(r.seconds)]);
      }
      box.appendChild(table);
    }
  }

  function render(doc, charts) {
    const w = doc.workload, m = doc.memory;
    $("summary").textContent = `${doc.model} on ${doc.accelerator}: weights ${doc.precision}, KV cache ` +
      `${doc.kv_precision}; ${count(w.batch)} × (${count(w.isl)} in, ${count(w.osl)} out)`;
    $("m-ttft").textContent = seconds(doc.ttft_seconds);
    $("m-tpot").textContent = seconds(doc.decode.seconds_per_token);
    $("m-total").textContent = seconds(doc.total_seconds);
    $("m-throughput").textContent = doc.tokens_per_second.toFixed(1);
    $("m-weights").textContent = gb(m.weight_bytes);
    $("m-fit").textContent = !m.fits ? "does not fit" : m.max_concurrency === null ? "–" : count(m.max_concurrency);
    const realistic = doc.realistic || {};
    const subs = {
      "m-ttft": (realistic.prefill || {}).seconds, "m-tpot": (realistic.decode || {}).seconds_per_token,
      "m-total": realistic.total_seconds,
    };
    for (const [id, value] of Object.entries(subs)) {
      const parent = $(id).parentElement;
      parent.querySelector(".sub")?.remove();
      if (value) parent.insertAdjacentHTML("beforeend", `<span class="sub">realistic ${seconds(value)}</span>`);
    }
    listItems($("warnings"), doc.warnings);
    renderAccount(doc);
    renderExtra(doc);
    renderOperators(doc);
    const box = $("charts");
    box.innerHTML = "";
    for (const spec of charts) Charts.draw(spec, box);
  }

  async function update() {
    const mine = ++sequence, body = values();
    setStatus("computing…");
    try {
      const [doc, charts] = await Promise.all([api("api/request", body), api("api/charts", body)]);
      if (mine !== sequence) return; // a newer request is on its way
      render(doc, charts.charts);
      setStatus("");
      document.body.dataset.ready = String(mine);
    } catch (error) {
      if (mine === sequence) {
        setStatus(error.message, true);
        document.body.dataset.ready = String(mine);
      }
    }
  }

  function soon() {
    clearTimeout(timer);
    timer = setTimeout(update, 250);
  }

  async function saveReport() {
    setStatus("writing the report…");
    try {
      const response = await fetch("api/report", { method: "POST", body: JSON.stringify(values()),
        headers: { "Content-Type": "application/json" } });
      if (!response.ok) throw new Error((await response.json()).error);
      const link = document.createElement("a");
      link.href = URL.createObjectURL(await response.blob());
      link.download = "inferledger-report.html";
      link.click();
      URL.revokeObjectURL(link.href);
      setStatus("");
    } catch (error) {
      setStatus(error.message, true);
    }
  }

  async function readConfig(file) {
    if (file.size > MAX_CONFIG_BYTES) throw new Error(`${file.name}: larger than 1 MiB; is this a config.json?`);
    try {
      return JSON.parse(await file.text());
    } catch (error) {
      throw new Error(`${file.name}: not JSON (${error.message})`);
    }
  }

  async function diagnose(file) {
    const out = $("diagnosis");
    out.textContent = "reading…";
    const query = new URLSearchParams({ name: file.name });
    if (!uploadedConfig && !$("hub").value.trim()) query.set("model", $("model").value);
    query.set("gpu", $("gpu").value);
    try {
      const d = await api(`api/diagnose?${query}`, file, true);
      out.innerHTML = "";
      const verdict = document.createElement("p");
      verdict.className = "verdict";
      verdict.id = "verdict";
      verdict.textContent = `${d.verdict} (confidence ${d.confidence}): ${d.headline}`;
      out.appendChild(verdict);
      const list = document.createElement("ul");
      listItems(list, [...d.evidence.map((e) => e.text), ...d.advice.map((a) => a.text || a), ...d.notes]);
      out.appendChild(list);
    } catch (error) {
      out.innerHTML = "";
      const p = document.createElement("p");
      p.className = "status error";
      p.textContent = error.message;
      out.appendChild(p);
    }
  }

  async function start() {
    const embedded = document.getElementById("inferledger-data");
    if (embedded) { // the HTML report: no server, the data is in the file
      const data = JSON.parse(embedded.textContent);
      document.body.classList.add("report");
      render(data.document, data.charts);
      $("footer").textContent = `${data.command} · ${$("footer").textContent}`;
      document.body.dataset.ready = "report";
      return;
    }
    try {
      const [models, gpus, formats] = await Promise.all([api("api/models"), api("api/gpus"), api("api/formats")]);
      fill($("model"), models.map((m) => [m.name, m.name]), DEFAULT_MODEL);
      fill($("gpu"), gpus.map((g) => [g.name, `${g.name} · ${g.display_name}`]), DEFAULT_GPU);
      const choices = formats.map((f) => [f, f]);
      fill($("precision"), [["", "the checkpoint's"], ...choices], "");
      fill($("kv_precision"), [["", "default"], ...choices], "");
    } catch (error) {
      setStatus(error.message, true);
      return;
    }
    const form = $("request-form");
    form.addEventListener("input", (event) => {
      // A hub id is looked up on the network: only once it is complete (Enter or leaving the field), not per key.
      if (event.target.type !== "file" && event.target.id !== "hub") soon();
    });
    $("hub").addEventListener("change", update);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      update();
    });
    $("model").addEventListener("change", () => {
      uploadedConfig = null;
      $("hub").value = "";
      $("config-name").textContent = "";
      $("config-file").value = "";
    });
    $("config-file").addEventListener("change", async () => {
      const file = $("config-file").files[0];
      if (!file) return;
      try {
        uploadedConfig = await readConfig(file);
        $("hub").value = "";
        $("config-name").textContent = `using ${file.name}`;
        update();
      } catch (error) {
        setStatus(error.message, true);
      }
    });
    $("save-report").addEventListener("click", saveReport);
    $("log-file").addEventListener("change", () => {
      const file = $("log-file").files[0];
      if (file) diagnose(file);
    });
    update();
  }

  start();
})();
