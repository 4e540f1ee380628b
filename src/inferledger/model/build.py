"""Builders for the parts every decoder shares: attention, FFN, MoE, norms, embedding and head.

Adapters (families.py, hybrids.py) read a config and call these; they return tuples of spec Modules. Each builder's
arguments are the shapes a reader can check against the architecture's modeling code.
"""

from __future__ import annotations

from collections import OrderedDict

from inferledger.model.spec import AttentionCore, Block, Embedding, Experts, Linear, ModelSpec, Vector


def norm(name: str, width: int, bias: bool = False, component: str = "norm") -> Vector:
    """RMSNorm (weight) or LayerNorm (weight + bias) over `width` features."""
    return Vector(name, width * (2 if bias else 1), component, width=width)


def attention(
    *,
    hidden: int,
    num_heads: int,
    num_kv_heads: int,
    head_dim: int,
    kind: str = "full",
    v_head_dim: int | None = None,
    window: int | None = None,
    qkv_bias: bool = False,
    o_bias: bool = False,
    qk_norm: str | None = None,
    fused_qkv: bool = False,
    sinks: bool = False,
    output_gate: bool = False,
    k_equals_v: bool = False,
    quantizable: bool = True,
) -> tuple:
    """Multi-head / grouped-query attention: projections, optional q/k norms, sinks, and the core.

    qk_norm: "head" (one RMSNorm of head_dim shared across heads: Qwen3, Gemma3) or "full" (over all heads:
    MiniMax-M2, OLMo2). output_gate: Qwen3-Next/3.5 project a per-channel sigmoid gate with q (q_proj is 2x wide).
    k_equals_v: one projection serves as both K and V (Gemma-4 global layers)."""
    v_head_dim = v_head_dim or head_dim
    component = f"attention.{kind}"
    q_out = num_heads * head_dim * (2 if output_gate else 1)
    k_out = num_kv_heads * head_dim
    v_out = 0 if k_equals_v else num_kv_heads * v_head_dim
    modules = []
    if fused_qkv:
        modules.append(Linear("qkv_proj", hidden, q_out + k_out + v_out, component, qkv_bias, quantizable))
    else:
        modules.append(Linear("q_proj", hidden, q_out, component, qkv_bias, quantizable))
        modules.append(Linear("k_proj", hidden, k_out, component, qkv_bias, quantizable))
        if v_out:
            modules.append(Linear("v_proj", hidden, v_out, component, qkv_bias, quantizable))
    if qk_norm == "head":
        modules += [norm("q_norm", head_dim), norm("k_norm", head_dim)]
    elif qk_norm == "full":
        modules += [norm("q_norm", num_heads * head_dim), norm("k_norm", num_kv_heads * head_dim)]
    if sinks:
        # One learned logit per head that joins the softmax (gpt-oss): parameters, no cache.
        modules.append(Vector("sinks", num_heads, component, width=0, flops_per_element=0))
    modules.append(AttentionCore("attention", kind, num_heads, num_kv_heads, head_dim, v_head_dim, component,
                                 window_tokens=window, k_equals_v=k_equals_v))
    modules.append(Linear("o_proj", num_heads * v_head_dim, hidden, component, o_bias, quantizable))
    return tuple(modules)


def ffn(hidden: int, intermediate: int, *, gated: bool = True, bias: bool = False, fused: bool = False,
        component: str = "ffn.dense", prefix: str = "mlp") -> tuple:
    """Dense FFN: SwiGLU/GeGLU (gate, up, down) or plain (up, down)."""
    if gated and fused:
        return (Linear(f"{prefix}.gate_up_proj", hidden, 2 * intermediate, component, bias),
                Linear(f"{prefix}.down_proj", intermediate, hidden, component, bias))
    if gated:
        return (Linear(f"{prefix}.gate_proj", hidden, intermediate, component, bias),
                Linear(f"{prefix}.up_proj", hidden, intermediate, component, bias),
                Linear(f"{prefix}.down_proj", intermediate, hidden, component, bias))
    return (Linear(f"{prefix}.up_proj", hidden, intermediate, component, bias),
            Linear(f"{prefix}.down_proj", intermediate, hidden, component, bias))


def moe(hidden: int, *, num_experts: int, top_k: int, expert_intermediate: int, shared_intermediate: int = 0,
        router_bias: bool = False, score_correction_bias: bool = False, gated: bool = True,
        expert_bias: bool = False, shared_gate: bool = False) -> tuple:
    """A routed MoE FFN: router, E experts of which top_k run per token, and optional shared expert(s).

    score_correction_bias: DeepSeek-V3's aux-loss-free balancing bias (E values). shared_gate: Qwen2-MoE/Qwen3-Next
    scale the shared expert by a sigmoid gate (a 1-output linear)."""
    modules = [Linear("router", hidden, num_experts, "ffn.router", router_bias, quantizable=False)]
    if score_correction_bias:
        modules.append(Vector("router.e_score_correction_bias", num_experts, "ffn.router", width=0,
                              flops_per_element=0))
    modules.append(Experts("experts", num_experts, top_k, hidden, expert_intermediate, "ffn.routed_experts",
                           gated=gated, bias=expert_bias))
    if shared_intermediate:
        modules += ffn(hidden, shared_intermediate, gated=gated, component="ffn.shared_experts", prefix="shared")
        if shared_gate:
            modules.append(Linear("shared.gate", hidden, 1, "ffn.shared_experts", quantizable=False))
    return tuple(modules)


def assemble(*, name: str, model_type: str, hidden: int, vocab: int, layers: list[tuple[str, tuple]],
             tied: bool, max_context: int | None, config: dict, final_norm_bias: bool = False,
             position_embeddings: int = 0, extra: dict | None = None, notes: tuple = ()) -> ModelSpec:
    """Embedding, the layers (identical ones grouped into one Block), final norm and head, as one ModelSpec.
    A tied head has no weights of its own (counted once, in the embedding) but still costs its matmul."""
    embedding = [Embedding("embed_tokens", vocab, hidden)]
    if position_embeddings:
        embedding.append(Embedding("embed_positions", position_embeddings, hidden))
    groups: OrderedDict = OrderedDict()
    for index, (kind, modules) in enumerate(layers):
        groups.setdefault((kind, modules), []).append(index)
    blocks = [Block("embedding", tuple(embedding))]
    blocks += [Block(kind, modules, tuple(indices)) for (kind, modules), indices in groups.items()]
    head = (norm("final_norm", hidden, final_norm_bias),
            Linear("lm_head", hidden, vocab, "lm_head", quantizable=False, bias=False))
    blocks.append(Block("head", head))
    return ModelSpec(
        name=name, model_type=model_type, hidden_size=hidden, vocab_size=vocab, num_layers=len(layers),
        blocks=tuple(blocks), max_context_tokens=max_context, tied_embeddings=tied,
        config_dtype=config.get("torch_dtype") or config.get("dtype"),
        quantization=config.get("quantization_config"), extra_parameters=dict(extra or {}),
        notes=tuple(notes) + (("lm_head tied to the embedding: its weights are counted once",) if tied else ()),
    )
