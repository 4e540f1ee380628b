"""The text form of `inferledger model`: read like nanoGPT's sizing table — every entry with its share."""

from __future__ import annotations

from inferledger.precision import PRECISIONS, get_precision
from inferledger.report.table import render_table
from inferledger.report.units import format_bytes, format_count


def _ranges(layers: list[int]) -> str:
    if not layers:
        return "-"
    spans, start, prev = [], layers[0], layers[0]
    for index in layers[1:] + [None]:
        if index is not None and index == prev + 1:
            prev = index
            continue
        spans.append(f"{start}" if start == prev else f"{start}-{prev}")
        if index is not None:
            start = prev = index
    text = ",".join(spans)
    return text if len(text) <= 40 else f"{len(layers)} layers"


def ffn_reading(ledger) -> str:
    """The seed says the FFN holds about two-thirds of a dense model's parameters; say what this model shows."""
    p = ledger.params
    ffn_total = sum(v for k, v in p.by_component.items() if k.startswith("ffn."))
    ffn_active = sum(v for k, v in p.active_by_component.items() if k.startswith("ffn."))
    attention = sum(v for k, v in p.by_component.items() if k.startswith("attention."))
    if "ffn.routed_experts" in p.by_component:
        return (f"FFN (experts, shared experts, router) holds {ffn_total / p.total:.0%} of the parameters but "
                f"{ffn_active / p.active:.0%} of what one token uses: a token runs only its top-k experts, so "
                f"active ({format_count(p.active)}) is far below total ({format_count(p.total)}). "
                f"Attention holds {attention / p.total:.1%} of the total.")
    return (f"FFN holds {ffn_total / p.total:.0%} of the parameters and attention {attention / p.total:.0%} "
            f"(the seed's 'about two-thirds' in the FFN; embedding and head take the rest).")


def render_model(ledger) -> str:
    p = ledger.params
    out = [f"{ledger.name}  ({ledger.model_type}, {ledger.num_layers} layers, hidden {ledger.hidden_size}, "
           f"vocab {ledger.vocab_size:,}, max context {ledger.max_context_tokens or '?'})", ""]
    line = f"parameters: {p.total:,} ({format_count(p.total)})"
    if p.active != p.total:
        line += f"   active per token: {p.active:,} ({format_count(p.active)})"
    out.append(line)
    for name, value in p.extra.items():
        out.append(f"  not in the total: {name} {value:,} ({format_count(value)})")
    out.append("")
    rows = [[component, f"{value:,}", f"{value / p.total:6.1%}", f"{p.active_by_component.get(component, 0):,}"]
            for component, value in sorted(p.by_component.items(), key=lambda kv: -kv[1])]
    rows.append(["total", f"{p.total:,}", "100.0%", f"{p.active:,}"])
    out.append(render_table(["component", "parameters", "share", "active/token"], rows))
    out += ["", ffn_reading(ledger), ""]
    blocks = [[b["kind"], _ranges(b["layers"]), f"{b['parameters_per_layer']:,}", f"{b['parameters']:,}"]
              for b in p.by_block]
    out.append(render_table(["block", "layers", "params/layer", "params"], blocks))
    out.append("")
    weights = [[name, f"{get_precision(name).bytes_per_element if name in PRECISIONS else value / p.total:.4g}",
                format_bytes(value), format_bytes(value, binary=True)] for name, value in ledger.weight_bytes.items()]
    out.append(render_table(["weights as", "bytes/param (quantized)", "GB", "GiB"], weights))
    if ledger.precision in PRECISIONS:
        out.append(f"  checkpoint format: {ledger.precision} = {format_bytes(ledger.weight_bytes_selected)}; "
                   "embeddings, norms, routers and lm_head stay 16-bit in quantized formats")
    else:  # read from the weight files: each module in the type its own tensors are stored in
        out.append(f"  checkpoint format: {ledger.precision} = {format_bytes(ledger.weight_bytes_selected)}, "
                   "each tensor in the type its file states")
    out.append("")
    out.append(f"KV cache ({ledger.kv_precision}): {ledger.kv_bytes_per_token:,.0f} bytes per token "
               f"({ledger.kv_bytes_per_token / 1024:,.1f} KiB); one request at {ledger.context_tokens:,} tokens: "
               f"{format_bytes(ledger.kv_bytes_per_request, binary=True)}")
    kv_rows = [[e["kind"] + (f" (window {e['window_tokens']:,})" if e.get("window_tokens") else ""),
                str(e["layers"]), f"{e['bytes_per_token']:,.0f}", format_bytes(e["bytes_per_request"], binary=True)]
               for e in ledger.kv_by_layer_kind]
    if kv_rows:
        out.append(render_table(["layer kind", "layers", "bytes/token", f"per request @{ledger.context_tokens:,}"],
                                kv_rows))
    for note in ledger.notes:
        out.append(f"note: {note}")
    return "\n".join(out)



def render_checkpoint(checkpoint) -> str:
    """What the weight files hold, by stored type, and what the config's spec did not expect."""
    c = checkpoint
    files = c.files[0] if len(c.files) == 1 else f"{len(c.files)} files"
    read = f"{c.header_bytes:,} bytes read, " if c.header_bytes else ""
    out = ["", f"{c.format} headers ({files}; {read}no weights): {c.tensors:,} tensors, "
               f"{c.elements:,} elements, {format_bytes(c.stored_bytes)} stored"]
    rows = [[dtype, f"{v['tensors']:,}", f"{v['elements']:,}", f"{8 * v['stored_bytes'] / v['elements']:.4g}"
             if v["elements"] else "-", format_bytes(v["stored_bytes"])]
            for dtype, v in sorted(c.by_type.items(), key=lambda kv: -kv[1]["stored_bytes"])]
    out.append(render_table(["stored as", "tensors", "elements", "bits/element", "bytes"], rows))
    for entry in c.unexpected:
        out.append(f"  not in the model's account: {entry['what']}: {entry['tensors']:,} tensors, "
                   f"{entry['elements']:,} elements, {format_bytes(entry['stored_bytes'])} (e.g. {entry['example']})")
    for line in c.mismatches:
        out.append(f"  disagrees with the config: {line}")
    return "\n".join(out)
