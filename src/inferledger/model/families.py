"""Adapters for the transformer families: config.json → ModelSpec.

One function per family shape. The Llama-shaped decoder (llama, mistral, mixtral, qwen2/3 and their MoEs, phi3,
gemma 1-3, gpt-oss, minimax-m2, llama4) is one adapter with per-family traits, because those families differ only
in spellings, norms, biases and which layers are sliding or MoE. GPT-2, Falcon and the MLA family (DeepSeek V2/V3,
Kimi K2, DeepSeek-V3.2, GLM-5) have adapters of their own. Facts no config key states are noted where used.
"""

from __future__ import annotations

from inferledger.errors import ConfigError
from inferledger.model.build import assemble, attention, ffn, moe, norm
from inferledger.model.config import Fields
from inferledger.model.spec import AttentionCore, Linear, ModelSpec

# Spellings of the common quantities, with the families that use each.
HIDDEN = ("hidden_size", "n_embd", "d_model")  # most; gpt2; t5-style
LAYERS = ("num_hidden_layers", "n_layer", "num_layers")  # most; gpt2/falcon(old); chatglm
HEADS = ("num_attention_heads", "n_head")  # most; gpt2/falcon(old)
KV_HEADS = ("num_key_value_heads", "n_head_kv", "num_kv_heads", "multi_query_group_num")  # most; falcon; chatglm
INTERMEDIATE = ("intermediate_size", "n_inner", "ffn_hidden_size")  # most; gpt2; chatglm
MAX_CONTEXT = ("max_position_embeddings", "n_positions", "seq_length", "max_sequence_length")


def _common(f: Fields) -> dict:
    hidden = f.int(*HIDDEN)
    heads = f.int(*HEADS)
    return {
        "hidden": hidden,
        "layers": f.int(*LAYERS),
        "heads": heads,
        "kv_heads": f.int(*KV_HEADS, default=heads),
        # head_dim is explicit in newer configs and need not be hidden/heads (Qwen3-0.6B: 128 with 16 heads of 1024).
        "head_dim": f.head_dim(hidden, heads),
        "vocab": f.int("vocab_size"),
        "max_context": f.int(*MAX_CONTEXT, default=None),
    }


def _layer_kinds(f: Fields, model_type: str, layers: int) -> list[str]:
    """'full' | 'sliding' | 'chunked' per layer, from whichever way this family says it."""
    types = f.sequence("layer_types", default=None)
    if types:
        if not all(isinstance(kind, str) for kind in types):
            raise_field(f, "layer_types", "is not a list of layer kinds")
        if len(types) != layers:
            raise_field(f, "layer_types", f"has {len(types)} entries for {layers} layers")
        return [t.replace("_attention", "").replace("attention", "full") for t in types]
    window = f.get("sliding_window", default=None)
    if model_type == "gemma2":  # alternating, sliding first (Gemma 2 report)
        return ["sliding" if i % 2 == 0 else "full" for i in range(layers)]
    if model_type in ("gemma3", "gemma3_text"):  # every `sliding_window_pattern`-th layer is global
        pattern = f.int("sliding_window_pattern", "_sliding_window_pattern", default=6)
        return ["full" if (i + 1) % pattern == 0 else "sliding" for i in range(layers)]
    if model_type == "llama4_text":  # RoPE layers use chunked attention, every 4th (NoPE) layer is global
        no_rope = f.sequence("no_rope_layers", default=None) or [int((i + 1) % 4 != 0) for i in range(layers)]
        return ["chunked" if uses_rope else "full" for uses_rope in no_rope]
    if window and model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe"):
        if not f.flag("use_sliding_window"):
            return ["full"] * layers  # Qwen2.5 ships sliding_window with use_sliding_window: false
        first = f.int("max_window_layers", default=layers, minimum=0)
        return ["sliding" if i >= first else "full" for i in range(layers)]
    if window:  # mistral / phi3 / mixtral with a window: every layer slides
        return ["sliding"] * layers
    return ["full"] * layers


def raise_field(f: Fields, field: str, problem: str):
    raise ConfigError(f"{f.source}: field {field} {problem}")


# Per-family facts for the Llama-shaped decoder.
_QK_HEAD_NORM = {"qwen3", "qwen3_moe", "gemma3", "gemma3_text"}  # Qwen3 and Gemma 3 RMSNorm q and k per head
_FOUR_NORMS = {"gemma2", "gemma3", "gemma3_text"}  # pre/post norms around both attention and FFN
_TIED_BY_DEFAULT = {"gemma", "gemma2", "gemma3", "gemma3_text"}


def llama_like(f: Fields, model_type: str, name: str) -> ModelSpec:
    c = _common(f)
    hidden, heads, kv_heads, head_dim = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
    kinds = _layer_kinds(f, model_type, c["layers"])
    window = f.int("sliding_window", "attention_chunk_size", default=None)
    if model_type == "llama4_text":
        window = f.int("attention_chunk_size", default=window)
    qkv_bias = f.flag("attention_bias") or model_type in ("qwen2", "qwen2_moe")  # Qwen2 has qkv bias, no key says so
    o_bias = f.flag("attention_bias") and model_type not in ("qwen2", "qwen2_moe")
    qk_norm = "head" if model_type in _QK_HEAD_NORM else None
    if model_type == "minimax_m2" and f.flag("use_qk_norm"):
        qk_norm = "full" if f.get("qk_norm_type", default="per_layer") == "per_layer" else "head"
    notes = []
    if model_type in ("qwen2", "qwen2_moe"):
        notes.append("qwen2: q/k/v projections carry a bias (no config key says so)")
    if model_type == "llama4_text" and f.flag("use_qk_norm"):
        notes.append("llama4: q/k L2 norm has no weights")

    experts = f.int("num_local_experts", "num_experts", "n_routed_experts", default=0, minimum=0)
    top_k = f.int("num_experts_per_tok", "experts_per_token", default=0, minimum=0)
    dense_intermediate = f.int(*INTERMEDIATE)
    expert_intermediate = f.int("moe_intermediate_size", default=dense_intermediate)
    if model_type == "llama4_text":
        dense_intermediate = f.int("intermediate_size_mlp", default=dense_intermediate)
    shared_intermediate = f.int("shared_expert_intermediate_size", "shared_intermediate_size", default=0, minimum=0)
    if model_type == "llama4_text":
        shared_intermediate = expert_intermediate  # one shared expert the size of a routed one

    def is_moe(i: int) -> bool:
        if not experts:
            return False
        if i in f.sequence("mlp_only_layers", default=[]):
            return False
        if model_type == "llama4_text":
            moe_layers = f.sequence("moe_layers", default=None)
            if moe_layers is not None:
                return i in moe_layers
            return (i + 1) % f.int("interleave_moe_layer_step", default=1) == 0
        return (i + 1) % f.int("decoder_sparse_step", default=1) == 0

    gpt_oss = model_type == "gpt_oss"
    quantization = f.get("quantization_config", default={})
    skipped = quantization.get("modules_to_not_convert") if isinstance(quantization, dict) else None
    not_converted = " ".join(name for name in skipped if isinstance(name, str)) if isinstance(skipped, list) else ""
    layers = []
    for i, kind in enumerate(kinds):
        parts = [norm("input_layernorm", hidden)]
        parts += attention(hidden=hidden, num_heads=heads, num_kv_heads=kv_heads, head_dim=head_dim, kind=kind,
                           window=window if kind != "full" else None, qkv_bias=qkv_bias or gpt_oss,
                           o_bias=o_bias or gpt_oss, qk_norm=qk_norm, fused_qkv=model_type == "phi3",
                           sinks=gpt_oss, quantizable="self_attn" not in not_converted)
        parts.append(norm("post_attention_layernorm", hidden))
        if model_type in _FOUR_NORMS:
            parts.append(norm("pre_feedforward_layernorm", hidden))
        if is_moe(i):
            parts += moe(hidden, num_experts=experts, top_k=top_k, expert_intermediate=expert_intermediate,
                         shared_intermediate=shared_intermediate, router_bias=gpt_oss, expert_bias=gpt_oss,
                         score_correction_bias=model_type == "minimax_m2" and f.flag("use_routing_bias"),
                         shared_gate=model_type == "qwen2_moe")
            mlp_kind = "moe"
        else:
            parts += ffn(hidden, dense_intermediate, fused=model_type == "phi3", bias=f.flag("mlp_bias"))
            mlp_kind = "dense"
        if model_type in _FOUR_NORMS:
            parts.append(norm("post_feedforward_layernorm", hidden))
        layers.append((f"{kind}+{mlp_kind}", tuple(parts)))

    extra = {}
    if model_type == "minimax_m2" and f.flag("use_mtp"):
        notes.append("minimax-m2: MTP modules are declared (num_mtp_modules) but not shipped in the checkpoint")
    tied = f.flag("tie_word_embeddings", default=model_type in _TIED_BY_DEFAULT)
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=c["vocab"], layers=layers, tied=tied,
                    max_context=c["max_context"], config=f.data, extra=extra, notes=tuple(notes))


def gpt2(f: Fields, model_type: str, name: str) -> ModelSpec:
    """GPT-2: learned positions, LayerNorm with bias, fused c_attn with bias, GELU MLP 4x, tied head."""
    c = _common(f)
    hidden = c["hidden"]
    inner = f.int("n_inner", default=4 * hidden)
    parts = (norm("ln_1", hidden, bias=True),
             *attention(hidden=hidden, num_heads=c["heads"], num_kv_heads=c["heads"], head_dim=c["head_dim"],
                        qkv_bias=True, o_bias=True, fused_qkv=True),
             norm("ln_2", hidden, bias=True),
             *ffn(hidden, inner, gated=False, bias=True))
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=c["vocab"],
                    layers=[("full+dense", parts)] * c["layers"], tied=f.flag("tie_word_embeddings", default=True),
                    max_context=c["max_context"], config=f.data, final_norm_bias=True,
                    position_embeddings=f.int("n_positions", "max_position_embeddings"))


def falcon(f: Fields, model_type: str, name: str) -> ModelSpec:
    """Falcon: fused query_key_value, multi-query (one KV head) or grouped (new_decoder_architecture),
    parallel attention + MLP sharing one LayerNorm (two in the new architecture), GELU MLP 4x, tied head."""
    c = _common(f)
    hidden, heads = c["hidden"], c["heads"]
    new_arch = f.flag("new_decoder_architecture")
    if new_arch:
        kv_heads = f.int("num_kv_heads", "n_head_kv", default=heads)
    else:
        kv_heads = 1 if f.flag("multi_query", default=True) else heads
    bias = f.flag("bias")
    inner = f.int("ffn_hidden_size", default=4 * hidden)
    ln = [norm("ln_attn", hidden, bias=True), norm("ln_mlp", hidden, bias=True)] if new_arch else [
        norm("input_layernorm", hidden, bias=True)]
    if not new_arch and not f.flag("parallel_attn", default=True):
        ln.append(norm("post_attention_layernorm", hidden, bias=True))
    parts = (*ln,
             *attention(hidden=hidden, num_heads=heads, num_kv_heads=kv_heads, head_dim=c["head_dim"],
                        qkv_bias=bias, o_bias=bias, fused_qkv=True),
             *ffn(hidden, inner, gated=False, bias=bias))
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=c["vocab"],
                    layers=[("full+dense", parts)] * c["layers"], tied=f.flag("tie_word_embeddings", default=True),
                    max_context=c["max_context"], config=f.data, final_norm_bias=True)


def mla_attention(f: Fields, hidden: int, heads: int) -> tuple:
    """Multi-head latent attention (DeepSeek-V2/V3): low-rank q (q_lora_rank, optional), a shared latent for
    K and V (kv_lora_rank) plus a decoupled RoPE key (qk_rope_head_dim) — the latent and the rope key are all
    that is cached per token."""
    q_lora = f.int("q_lora_rank", default=None)
    kv_lora = f.int("kv_lora_rank")
    nope = f.int("qk_nope_head_dim")
    rope = f.int("qk_rope_head_dim")
    v_dim = f.int("v_head_dim")
    component = "attention.mla"
    modules = []
    if q_lora:
        modules += [Linear("q_a_proj", hidden, q_lora, component), norm("q_a_layernorm", q_lora),
                    Linear("q_b_proj", q_lora, heads * (nope + rope), component)]
    else:
        modules.append(Linear("q_proj", hidden, heads * (nope + rope), component))
    modules += [Linear("kv_a_proj_with_mqa", hidden, kv_lora + rope, component), norm("kv_a_layernorm", kv_lora),
                Linear("kv_b_proj", kv_lora, heads * (nope + v_dim), component)]
    if f.has("index_n_heads"):
        # DeepSeek-V3.2 / GLM-5 sparse-attention lightning indexer: wq_b, wk, k_norm (LayerNorm), weights_proj.
        idx_heads, idx_dim = f.int("index_n_heads"), f.int("index_head_dim")
        modules += [Linear("indexer.wq_b", q_lora or hidden, idx_heads * idx_dim, component),
                    Linear("indexer.wk", hidden, idx_dim, component), norm("indexer.k_norm", idx_dim, bias=True),
                    Linear("indexer.weights_proj", hidden, idx_heads, component, quantizable=False)]
    modules.append(AttentionCore("attention", "mla", heads, 1, nope + rope, v_dim, component,
                                 kv_lora_rank=kv_lora, qk_rope_head_dim=rope))
    modules.append(Linear("o_proj", heads * v_dim, hidden, component))
    return tuple(modules)


def deepseek(f: Fields, model_type: str, name: str) -> ModelSpec:
    """DeepSeek-V2/V3, Kimi-K2, DeepSeek-V3.2, GLM-5: MLA + MoE with shared experts; the first
    `first_k_dense_replace` layers are dense. MTP (`num_nextn_predict_layers`) is reported on its own line."""
    c = _common(f)
    hidden, heads = c["hidden"], c["heads"]
    experts = f.int("n_routed_experts", default=0, minimum=0)
    top_k = f.int("num_experts_per_tok", default=0, minimum=0)
    first_dense = f.int("first_k_dense_replace", default=0, minimum=0)
    freq = f.int("moe_layer_freq", default=1)
    moe_inter = f.int("moe_intermediate_size", default=0, minimum=0)
    shared = f.int("n_shared_experts", default=0, minimum=0)
    # V3's aux-loss-free balancing ("noaux_tc") adds a per-expert bias; V2 ("greedy"/"group_limited_greedy") has none.
    correction = f.get("topk_method", default="noaux_tc" if model_type != "deepseek_v2" else "greedy") == "noaux_tc"

    def layer(i: int) -> tuple[str, tuple]:
        parts = [norm("input_layernorm", hidden), *mla_attention(f, hidden, heads), norm("post_attention_layernorm", hidden)]
        if experts and i >= first_dense and i % freq == 0:
            parts += moe(hidden, num_experts=experts, top_k=top_k, expert_intermediate=moe_inter,
                         shared_intermediate=shared * moe_inter, score_correction_bias=correction)
            return "mla+moe", tuple(parts)
        parts += ffn(hidden, f.int(*INTERMEDIATE))
        return "mla+dense", tuple(parts)

    layers = [layer(i) for i in range(c["layers"])]
    mtp_layers = f.int("num_nextn_predict_layers", default=0, minimum=0)
    extra = {}
    if mtp_layers:
        # An MTP module: enorm, hnorm, eh_proj (2H→H), one MoE decoder layer, a final norm; the checkpoint also
        # stores its own copy of the embedding and head.
        decoder = sum(m.weight_elements for m in layers[-1][1])
        per_module = 3 * hidden + 2 * hidden * hidden + decoder + 2 * c["vocab"] * hidden
        extra["mtp"] = mtp_layers * per_module
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=c["vocab"], layers=layers,
                    tied=f.flag("tie_word_embeddings"), max_context=c["max_context"], config=f.data, extra=extra)
