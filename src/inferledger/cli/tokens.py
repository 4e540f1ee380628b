"""`inferledger tokens`: count a text (file, stdin, or each JSONL/CSV record) under several real tokenizers side
by side, and optionally turn the counts into a request's cost on a model and an accelerator."""

from __future__ import annotations

import argparse

HELP = "count tokens of a text under several tokenizers side by side (spread, words×1.3 error, cost)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from inferledger import defaults
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_format_options

    parser.add_argument("input", nargs="?", default="-",
                        help="text, .jsonl or .csv file; '-' or nothing for stdin")
    parser.add_argument("--text", help="count this string instead of a file")
    parser.add_argument("-t", "--tokenizer", action="append", metavar="NAME",
                        help="bundled name (cl100k_base, o200k_base, mistral-v1, mistral-v3, tekken, qwen2.5, qwen3.5, "
                             "deepseek-v4), a "
                             "tokenizer.json / tekken.json / SentencePiece .model / .tiktoken file, a model "
                             "folder, or a hub id; repeat or comma-separate for several "
                             "(default: the --model's own tokenizer when it has one, else cl100k_base, o200k_base, "
                             "mistral-v1, tekken)")
    parser.add_argument("--format", choices=["auto", "text", "jsonl", "csv"], default="auto",
                        help="input format (auto: by suffix .jsonl/.ndjson/.csv, else text)")
    parser.add_argument("--field", help="JSONL field or CSV column holding the text (default: text, content, "
                                        "prompt or messages)")
    parser.add_argument("--encoding", default="utf-8", help="text encoding of the input (default utf-8)")
    parser.add_argument("--add-special-tokens", action="store_true",
                        help="also count the special tokens each tokenizer adds by default (BOS, [CLS]/[SEP])")
    parser.add_argument("--list", action="store_true", help="list the bundled offline tokenizers and exit")
    cost = parser.add_argument_group("the model's own tokenizer (--model), and its cost (--model with --gpu)")
    cost.add_argument("--model", help="model (catalog name, hub id, config.json or folder): counted with its own "
                                      "tokenizer unless -t is given")
    cost.add_argument("--gpu", help="accelerator name, e.g. h100-sxm")
    cost.add_argument("--osl", "--output-tokens", dest="output_tokens", type=int, default=defaults.OSL_TOKENS,
                      metavar="TOKENS", help=f"output tokens of the request (default {defaults.OSL_TOKENS})")
    add_format_options(cost)
    cost.add_argument("--batch", type=int, default=defaults.BATCH,
                      help=f"requests decoded together (default {defaults.BATCH})")
    add_json_flag(parser)


def _format_of(args) -> str:
    if args.format != "auto":
        return args.format
    lower = args.input.lower()
    if lower.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if lower.endswith(".csv"):
        return "csv"
    return "text"


def _tokenizer_names(args) -> list[str]:
    from inferledger.tokens.loading import DEFAULT_TOKENIZERS

    if not args.tokenizer:
        return list(DEFAULT_TOKENIZERS)
    names = []
    for value in args.tokenizer:
        names.extend(part.strip() for part in value.split(",") if part.strip())
    return names


def _list(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.errors import TokenizerError
    from inferledger.report.table import render_table
    from inferledger.tokens.loading import BUNDLED, DEFAULT_TOKENIZERS, load_tokenizer

    rows = []
    for name, (label, _) in BUNDLED.items():
        try:
            document = load_tokenizer(name).to_dict()
        except TokenizerError as error:
            document = {"tokenizer": name, "error": str(error)}
        document.update(description=label, default=name in DEFAULT_TOKENIZERS)
        rows.append(document)
    if args.json:
        print_json({"tokenizers": rows})
        return 0
    print(render_table(["tokenizer", "family", "vocab", "default", "what", "file"],
                       [[r["tokenizer"], r.get("family", "-"), f"{r['vocab_size']:,}" if "vocab_size" in r else "-",
                         "yes" if r["default"] else "", r["description"], r.get("source", r.get("error", ""))]
                        for r in rows], align="llrlll"))
    return 0


def run(args) -> int:
    if args.list:
        return _list(args)

    from inferledger.cli._output import print_json
    from inferledger.errors import BadWorkload
    from inferledger.report.progress import Progress
    from inferledger.tokens import reading
    from inferledger.tokens.counting import count_pieces, count_text
    from inferledger.tokens.loading import load_tokenizer

    if args.gpu is not None and args.model is None:
        raise BadWorkload("--gpu needs --model: give both to turn counts into a request's cost")
    choice, warnings = None, []
    if not args.tokenizer and args.model is not None:
        # The model's own tokenizer, not a side-by-side of unrelated ones (tokens/choice.py says where it looks).
        from inferledger.tokens.choice import model_tokenizer

        found = model_tokenizer(args.model, args.add_special_tokens)
        if found is not None:
            tokenizers, choice = [found[0]], found[1]
        else:
            warnings.append(f"no tokenizer of {args.model}'s own was found (no tokenizer file beside it, none "
                            "cached or reachable on the hub, no bundled one for its family): counting with the "
                            "defaults, none of which is the model's; pass -t FILE to choose")
    if choice is None:
        tokenizers = [load_tokenizer(name, args.add_special_tokens) for name in _tokenizer_names(args)]

    if args.text is not None:
        report = count_text(args.text, tokenizers, "<--text>")
    else:
        stream, name, size = reading.open_input(args.input)
        progress = Progress(size or 0, "tokens", enabled=None if size else False)
        try:
            kind = _format_of(args)
            if kind == "jsonl":
                pieces = reading.iter_jsonl_records(stream, name, args.field, args.encoding)
            elif kind == "csv":
                pieces = reading.iter_csv_records(stream, name, args.field, args.encoding)
            else:
                pieces = ((p.text, p.byte_count, p.context) for p in reading.iter_pieces(stream, name, args.encoding))
            report = count_pieces(pieces, tokenizers, name, per_record=kind != "text", on_progress=progress.update)
        finally:
            progress.close()
            if args.input != "-":
                stream.close()

    report.tokenizer_choice, report.warnings = choice, warnings
    if args.model is not None and args.gpu is not None:
        from inferledger.tokens.cost import token_cost

        report.cost = token_cost(report, args.model, args.gpu, args.output_tokens, args.precision,
                                 args.kv_precision, batch=args.batch)

    from inferledger.cli._output import print_warnings

    print_warnings("tokens", warnings)
    if args.json:
        print_json(report)
        return 0
    print(_render(report))
    return 0


def _percent(value: float) -> str:
    return "-" if value != value else f"{value:+.1f}%"


def _render(report) -> str:
    from inferledger.report.table import render_table
    from inferledger.report.units import format_bytes, format_seconds

    text = report.text
    head = (f"{report.input}: {format_bytes(text.bytes)} ({text.bytes:,} bytes), {text.characters:,} characters, "
            f"{text.words:,} words, {text.cjk_characters:,} CJK characters"
            + (f", {report.records:,} records" if report.records is not None else ""))
    rows = []
    for r in report.results:
        row = [r.tokenizer, r.family, f"{r.vocab_size:,}", f"{r.tokens:,}",
               f"{r.characters_per_token:.2f}", _percent(r.words_estimate_error_percent)]
        stats = r.record_stats()
        if stats is not None:
            row += [f"{stats.get('mean_tokens', 0):,.1f}", f"{stats.get('p99_tokens', 0):,.0f}"]
        rows.append(row)
    header = ["tokenizer", "family", "vocab", "tokens", "chars/token", "words×1.3 vs real"]
    if report.records is not None:
        header += ["mean/record", "p99/record"]
    if report.tokenizer_choice is not None:
        choice = report.tokenizer_choice
        head += f"\ntokenizer of {choice.model}: {choice.tokenizer} from {choice.source} ({choice.why})"
    spread = (f"spread between tokenizers: {report.spread_percent:.1f}% (largest count / smallest − 1); "
              if len(report.results) > 1 else "")
    lines = [head, "", render_table(header, rows, align="ll" + "r" * (len(header) - 2)), "",
             f"{spread}words×1.3 estimate: {text.words_estimate_tokens:,.0f} tokens"]
    cost = report.cost
    if cost is not None:
        cheapest = min(row.total_seconds for row in cost.rows)
        cost_rows = [[row.tokenizer, f"{row.input_tokens:,}", format_seconds(row.prefill_seconds),
                      format_bytes(row.kv_bytes_per_request), format_seconds(row.total_seconds),
                      f"+{format_seconds(row.total_seconds - cheapest)}" if row.total_seconds > cheapest else "0",
                      f"{row.prefill_tokens_per_second:,.0f}"] for row in cost.rows]
        what = "mean record" if cost.input_is_mean_record else "whole input"
        lines += ["", f"as one request ({what} in, {cost.output_tokens} out) on {cost.model}, {cost.accelerator}, "
                      f"{cost.precision}, batch {cost.batch}:",
                  render_table(["tokenizer", "input tokens", "prefill", "KV/request (GB=1e9)", "total",
                                "vs cheapest", "prefill tok/s"], cost_rows)]
    return "\n".join(lines)
