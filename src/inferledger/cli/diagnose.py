"""`inferledger diagnose FILE… [--model M --gpu G] [--json]`: where does the time go in a serving log?"""

from __future__ import annotations

HELP = "diagnose serving logs, /metrics dumps and benchmark outputs: queueing, KV capacity, prefill, decode"

_TIMELINE_ROWS = 16


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_format_options, add_parallel_options

    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="log files (vLLM, SGLang, TGI, llama.cpp, ollama, TensorRT-LLM, benchmark clients, "
                             "Prometheus /metrics); several are read together; .gz is read as is; - reads stdin")
    parser.add_argument("--url", metavar="URL", help="scrape a live Prometheus endpoint, e.g. http://host:8000/metrics")
    parser.add_argument("--interval", type=float, default=5.0, metavar="S",
                        help="with --url: seconds between the two scrapes whose counter differences give rates "
                             "(default 5; 0 = one snapshot)")
    parser.add_argument("--model", metavar="M", help="model (name, config.json or folder) for the roofline comparison")
    parser.add_argument("--gpu", metavar="G", help="accelerator for the roofline comparison (h100, a100 80gb, ...)")
    add_format_options(parser)
    add_parallel_options(parser)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--rules", action="store_true",
                        help="print the table of diagnosis rules (evidence, threshold, confidence, why) "
                             "and the limits beside them, and exit")
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json, print_warnings
    from inferledger.diagnose import diagnose_files, diagnose_url
    from inferledger.errors import LogFormatError

    if args.rules:
        from inferledger.diagnose.rules import limits_table, rules_table

        print(rules_table())
        print()
        print(limits_table())
        return 0
    if not args.files and not args.url:
        raise LogFormatError("give one or more log files, or --url http://host:port/metrics")
    from inferledger.cli._workload import layout_from, topology_options

    options = {"model": args.model, "gpu": args.gpu, "precision": args.precision, "kv_precision": args.kv_precision,
               "parallel": layout_from(args), "topology_options": topology_options(args)}
    if args.url and args.files:
        raise LogFormatError("give log files or --url, not both")
    if args.url:
        from inferledger.errors import BadArgument

        if not args.interval >= 0:
            raise BadArgument(f"--interval must be 0 or more seconds, got {args.interval}")
        diagnosis = diagnose_url(args.url, interval_seconds=args.interval, **options)
    else:
        diagnosis = diagnose_files(args.files, progress=not args.no_progress and not args.json, **options)
    print_warnings("diagnose", diagnosis.warnings)
    if args.json:
        print_json(diagnosis)
    else:
        print(render(diagnosis))
    return 0


def _where(item) -> str:
    if not item.lines:
        return ""
    import os

    name = os.path.basename(item.file) if item.file else ""
    lines = ",".join(str(line) for line in item.lines[:5]) + ("…" if len(item.lines) > 5 else "")
    return f"  [{name + ':' if name else 'line '}{lines}]"


def _timeline(rows: list) -> str:
    from inferledger.report.table import render_table

    if len(rows) > _TIMELINE_ROWS:
        step = len(rows) / _TIMELINE_ROWS
        rows = [rows[int(index * step)] for index in range(_TIMELINE_ROWS)] + [rows[-1]]

    def cell(row, name, scale=1.0, digits=1):
        value = row.get(f"{name}_mean")
        return "-" if value is None else f"{value * scale:.{digits}f}"

    table = []
    for row in rows:
        lines = f"{row['first_line']}" + (f"-{row['last_line']}" if row["last_line"] != row["first_line"] else "")
        kv_max = row.get("kv_cache_usage_fraction_max")
        table.append([lines, cell(row, "prompt_tokens_per_second"), cell(row, "generation_tokens_per_second"),
                      cell(row, "running_requests"), cell(row, "waiting_requests"),
                      cell(row, "kv_cache_usage_fraction", 100), "-" if kv_max is None else f"{kv_max * 100:.1f}"])
    return render_table(["lines", "prompt tok/s", "gen tok/s", "running", "waiting", "KV %", "KV % max"], table)


def render(diagnosis) -> str:
    """The human report: verdict first, then timeline, evidence, checks, roofline and files."""
    import os

    out = [f"verdict: {diagnosis.verdict}  (confidence {diagnosis.confidence:.2f})", f"  {diagnosis.headline}"]
    if diagnosis.alternatives:
        out.append("  also consistent with: " + ", ".join(
            f"{item['verdict']} ({item['confidence']:.2f})" for item in diagnosis.alternatives))
    out.append("")
    out.append("evidence:")
    for item in diagnosis.evidence[:12]:
        out.append(f"  - [{item.verdict}] {item.text}{_where(item)}")
    metrics = diagnosis.metrics
    if diagnosis.timeline:
        out.append("")
        out.append(f"timeline ({metrics['interval_windows']} stats windows, means per bucket):")
        out.append(_indent(_timeline(diagnosis.timeline)))
    if diagnosis.events:
        out.append("")
        out.append("events: " + ", ".join(f"{name} {value:,.0f}" for name, value in diagnosis.events.items()))
    if diagnosis.capacity:
        out.append("")
        out.append("capacity: " + ", ".join(_capacity_text(name, value) for name, value in diagnosis.capacity.items()))
    if diagnosis.checks:
        out.append("")
        out.append("consistency checks:")
        for check in diagnosis.checks:
            out.append("  - " + _check_text(check))
    if diagnosis.roofline:
        out.append("")
        out.append("against the roofline:")
        for line in diagnosis.roofline.get("lines", []):
            out.append(f"  - {line}")
    if diagnosis.advice:
        out.append("")
        out.append("what to change:")
        for line in diagnosis.advice:
            out.append(f"  - {line}")
    if diagnosis.notes:
        out.append("")
        out.append("notes:")
        for note in diagnosis.notes:
            out.append(f"  - {note}")
    out.append("")
    for info in diagnosis.files:
        name = os.path.basename(info["path"]) if "://" not in info["path"] else info["path"]
        if "error" in info:
            out.append(f"file {name}: not read: {info['error']}")
            continue
        text = (f"file {name}: {'+'.join(info['formats'])}, {info['lines']:,} lines, {info['records']:,} records")
        if info.get("unread_lines"):
            text += f", {info['unread_lines']:,} line(s) with numbers not read"
            for example in info["unread_examples"][:3]:
                text += f"\n  line {example['line_number']} not read: {example['text']}"
        if info["skipped_lines"]:
            text += f", {info['skipped_lines']:,} damaged line(s) skipped"
            for example in info["skipped_examples"][:3]:
                text += f"\n  line {example['line_number']}: {example['reason']}"
        out.append(text)
    return "\n".join(out)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.split("\n"))


def _capacity_text(name: str, value: float) -> str:
    if name.endswith("_bytes"):
        return f"{name[:-6]} {value / 2**30:.2f} GiB"
    if name.endswith("_fraction"):
        return f"{name[:-9]} {value:.0%}"
    if name.endswith("_seconds"):
        return f"{name[:-8]} {value:.2f} s"
    return f"{name} {value:,.6g}"


def _check_text(check: dict) -> str:
    if check["check"] == "latency composition":
        verdict = "consistent" if check["ok"] else "MISMATCH"
        return (f"{check['source']}: TTFT + TPOT x (n-1) = {check['predicted_e2e_seconds']:.3f} s vs E2E "
                f"{check['reported_e2e_seconds']:.3f} s (ratio {check['ratio']:.2f}): {verdict}")
    if check["check"] == "request parts":
        return (f"total vs load + prompt eval + eval over {check['requests']} request(s): largest gap "
                f"{check['largest_gap_seconds'] * 1e3:.1f} ms, {check['mismatched']} off by more than 10%: "
                f"{'consistent' if check['ok'] else 'MISMATCH'}")
    if check["check"] != "Little's law":
        return f"{check['source']}: {check['check']}: {'consistent' if check.get('ok', True) else 'MISMATCH'}"
    text = (f"{check['source']}: Little's law {check['output_tokens_per_second']:.1f} tok/s x "
            f"{check['seconds_per_token'] * 1e3:.2f} ms = {check['implied_decoding_requests']:.1f} requests decoding")
    if "concurrency" in check:
        text += f" (concurrency {check['concurrency']:.0f}: {'consistent' if check['ok'] else 'MISMATCH'})"
    return text
