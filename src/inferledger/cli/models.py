"""`inferledger models`: the bundled catalog of real configs, with their sizes."""

from __future__ import annotations

HELP = "list the bundled catalog of real model configs (works offline)"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag

    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.errors import InferledgerError
    from inferledger.ledger.params import count_parameters
    from inferledger.model import catalog_names, load_model
    from inferledger.operators import kv_bytes_per_token
    from inferledger.precision import get_precision

    entries = []
    for name in catalog_names():
        try:
            spec = load_model(name)
        except InferledgerError as error:  # keep listing: one unreadable entry must not hide the rest
            entries.append({"name": name, "error": str(error)})
            continue
        params = count_parameters(spec)
        entries.append({"name": name, "model_type": spec.model_type, "layers": spec.num_layers,
                        "params_total": params.total, "params_active": params.active,
                        "kv_bytes_per_token_bf16": kv_bytes_per_token(spec, get_precision("bf16")),
                        "max_context_tokens": spec.max_context_tokens})
    if args.json:
        print_json(entries)
        return 0
    from inferledger.report.table import render_table
    from inferledger.report.units import format_count

    entries = [e for e in entries if "error" not in e]
    rows = [[e["name"], e["model_type"], str(e["layers"]), format_count(e["params_total"]),
             format_count(e["params_active"]), f"{e['kv_bytes_per_token_bf16'] / 1024:,.0f}",
             f"{e['max_context_tokens'] or '-':,}" if e["max_context_tokens"] else "-"] for e in entries]
    print(render_table(["model", "type", "layers", "params", "active", "KV KiB/token", "max context"], rows))
    return 0
