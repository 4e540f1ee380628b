"""The text form of `inferledger fit`: the memory budget top-down, then what fits."""

from __future__ import annotations

from inferledger.report.units import format_bytes, format_seconds


def render_fit(doc: dict) -> str:
    out = [f"{doc['model']} on {doc['accelerator']}: weights {doc['precision']}, KV cache {doc['kv_precision']}", ""]
    cards = f" ({doc['num_gpus']} cards)" if doc["num_gpus"] > 1 else ""
    out.append(f"  {'card memory' + cards:<27} {format_bytes(doc['memory_bytes']):>12}")
    out.append(f"  × gpu_memory_utilization    {doc['gpu_memory_utilization']:>12}")
    out.append(f"  = usable                    {format_bytes(doc['usable_bytes']):>12}")
    out.append(f"  − weights                   {format_bytes(doc['weight_bytes']):>12}")
    out.append(f"  − activation workspace      {format_bytes(doc['activation_workspace_bytes']):>12}")
    out.append(f"  − runtime overhead{cards:<10} {format_bytes(doc['runtime_overhead_bytes']):>12}")
    out.append(f"  = KV-cache budget           {format_bytes(doc['kv_budget_bytes']):>12}")
    out.append("")
    if doc["kv_bytes_per_token"] is None:
        verdict = "fit" if doc["fits"] else "do NOT fit"
        out.append(f"the weights {verdict}; a bare parameter count has no cache shape: give --model for the KV "
                   "cache per token and how many requests fit")
        return "\n".join(out)
    out.append(f"KV cache: {doc['kv_bytes_per_token'] / 1024:,.1f} KiB per token; "
               f"{format_bytes(doc['kv_bytes_per_request'])} per request of {doc['context_tokens']:,} tokens")
    if doc["fits"]:
        out.append(f"fits {doc['max_concurrency']:,} concurrent requests of {doc['context_tokens']:,} tokens "
                   f"({doc['kv_tokens_capacity']:,} cached tokens in all)")
    elif doc["kv_budget_bytes"] < 0:
        out.append(f"does NOT fit: the weights and reserves exceed the usable memory by "
                   f"{format_bytes(-doc['kv_budget_bytes'])}; use a lower precision or more cards (--gpus)")
    else:
        out.append(f"does NOT fit one request of {doc['context_tokens']:,} tokens: short by "
                   f"{format_bytes(doc['shortfall_bytes'])}; shorten the context or lower --kv-precision")
    if "longest_context_tokens" in doc:
        out.append(f"longest context for {doc['concurrency']:,} concurrent requests: "
                   f"{doc['longest_context_tokens']:,} tokens")
    step = doc.get("decode_step")
    if step:
        out.append(f"decoding {step['batch']:,} requests at {step['context_tokens']:,} tokens: a step takes "
                   f"{format_seconds(step['floor_seconds'])} at the floor, {format_seconds(step['realistic_seconds'])}"
                   f" realistic ({step['floor_tokens_per_second']:,.0f} vs {step['realistic_tokens_per_second']:,.0f}"
                   f" output tokens/s" + ("; extrapolated" if step["extrapolated"] else "") + ")")
    return "\n".join(out)
