"""Adapters for hybrid layouts: recurrent mixers beside attention, and per-layer heterogeneous blocks.

Qwen3-Next and Qwen3.5 interleave Gated DeltaNet linear attention with gated full attention; Nemotron-H and
Nemotron-3 interleave Mamba-2, attention, MLP and (Latent)MoE by a pattern string; Nemotron-NAS (DeciLM) gives each
layer its own attention/FFN shape; MiMo-V2-Flash mixes sliding and global attention with different head counts;
Gemma 4 runs a dense MLP and an MoE side by side in each layer. Shapes are those of the tensors in the Hugging Face
checkpoints (transformers' and vLLM's modeling files); facts no config key states are commented where used.
"""

from __future__ import annotations

from inferledger.model.build import assemble, attention, ffn, moe, norm
from inferledger.model.config import Fields
from inferledger.model.families import HEADS, HIDDEN, KV_HEADS, LAYERS, MAX_CONTEXT, raise_field
from inferledger.model.spec import Conv1d, Experts, Linear, ModelSpec, StateCore, Vector


def _scalar(name: str, elements: int, component: str) -> Vector:
    """Per-head SSM / gate parameters (A_log, dt_bias, D, sinks): held, no per-token norm work."""
    return Vector(name, elements, component, width=0, flops_per_element=0)


def gated_deltanet(f: Fields, hidden: int, split_projections: bool) -> tuple:
    """Gated DeltaNet (Qwen3-Next, Qwen3.5): q and k of num_k_heads × k_dim, v and the output gate z of
    num_v_heads × v_dim, per-v-head beta (b) and decay (a); a depthwise causal conv over q|k|v without bias;
    A_log and dt_bias per v-head; a gated RMSNorm of v_dim shared by the heads; out_proj.
    The recurrent state is one k_dim × v_dim matrix per v-head; the conv keeps its last kernel−1 inputs."""
    k_heads, k_dim = f.int("linear_num_key_heads"), f.int("linear_key_head_dim")
    v_heads, v_dim = f.int("linear_num_value_heads"), f.int("linear_value_head_dim")
    kernel = f.int("linear_conv_kernel_dim")
    key, value = k_heads * k_dim, v_heads * v_dim
    conv_channels = 2 * key + value
    c = "attention.linear"
    if split_projections:  # Qwen3.5 stores the projections apart
        projections = (Linear("in_proj_qkv", hidden, conv_channels, c), Linear("in_proj_z", hidden, value, c),
                       Linear("in_proj_b", hidden, v_heads, c), Linear("in_proj_a", hidden, v_heads, c))
    else:  # Qwen3-Next fuses q|k|v|z and b|a
        projections = (Linear("in_proj_qkvz", hidden, conv_channels + value, c),
                       Linear("in_proj_ba", hidden, 2 * v_heads, c))
    return (*projections,
            Conv1d("conv1d", conv_channels, kernel, c),
            _scalar("A_log", v_heads, c), _scalar("dt_bias", v_heads, c),
            StateCore("delta_rule", "linear", state_elements=v_heads * k_dim * v_dim,
                      conv_elements=conv_channels * (kernel - 1), component=c),
            Vector("norm", v_dim, c, width=value),  # gated RMSNorm: one v_dim weight for all heads
            Linear("out_proj", value, hidden, c))


def mamba2(f: Fields, hidden: int) -> tuple:
    """Mamba-2 mixer (Nemotron-H): in_proj to z | x | B | C | dt, a depthwise conv over x|B|C (with bias when
    use_conv_bias), A_log, D and dt_bias per head, a gated grouped RMSNorm over d_inner, out_proj.
    d_inner is mamba_num_heads × mamba_head_dim — not expand × hidden (Nemotron-3-Nano: 4096, not 5376)."""
    heads, head_dim = f.int("mamba_num_heads"), f.int("mamba_head_dim")
    groups, d_state = f.int("n_groups"), f.int("ssm_state_size")
    kernel = f.int("conv_kernel")
    bias = f.flag("use_bias", "mamba_proj_bias")
    d_inner = heads * head_dim
    conv_channels = d_inner + 2 * groups * d_state
    c = "attention.mamba"
    return (Linear("in_proj", hidden, d_inner + conv_channels + heads, c, bias),
            Conv1d("conv1d", conv_channels, kernel, c, bias=f.flag("use_conv_bias", default=True)),
            _scalar("A_log", heads, c), _scalar("D", heads, c), _scalar("dt_bias", heads, c),
            StateCore("ssm", "mamba", state_elements=heads * head_dim * d_state,
                      conv_elements=conv_channels * (kernel - 1), component=c,
                      state_bytes_per_element=_STATE_DTYPE_BYTES.get(str(f.get("mamba_ssm_cache_dtype", default="")))),
            Vector("norm", d_inner, c, width=d_inner),
            Linear("out_proj", d_inner, hidden, c, bias))


_STATE_DTYPE_BYTES = {"float32": 4.0, "bfloat16": 2.0, "float16": 2.0}


# ---- Qwen3-Next, Qwen3.5 ----

def qwen_hybrid(f: Fields, model_type: str, name: str) -> ModelSpec:
    """Qwen3-Next / Qwen3.5: Gated DeltaNet layers with every `full_attention_interval`-th layer (or as
    `layer_types` says) full attention with an output gate and per-head q/k RMSNorm; a dense SwiGLU FFN (Qwen3.5
    27B) or 512/256 routed experts + one shared expert scaled by a sigmoid gate. MTP layers are reported apart."""
    hidden, layers = f.int(*HIDDEN), f.int(*LAYERS)
    heads = f.int(*HEADS)
    kv_heads, head_dim = f.int(*KV_HEADS, default=heads), f.head_dim(hidden, heads)
    types = f.get("layer_types", default=None)
    if types:
        if not isinstance(types, list) or len(types) != layers:
            raise_field(f, "layer_types", f"must list one entry for each of the {layers} layers")
        kinds = ["full" if t == "full_attention" else "linear" for t in types]
    else:  # Qwen3-Next: no layer_types, the last of every `full_attention_interval` layers is full attention
        interval = f.int("full_attention_interval")
        kinds = ["full" if (i + 1) % interval == 0 else "linear" for i in range(layers)]
    # Qwen3-Next always gates attention output (no key); Qwen3.5 says so with attn_output_gate.
    gate = f.flag("attn_output_gate", default=True)
    experts = f.int("num_experts", default=0, minimum=0)
    mlp_only = set(f.sequence("mlp_only_layers", default=[]))
    step = f.int("decoder_sparse_step", default=1)

    def mlp(i: int) -> tuple[str, tuple]:
        if experts and i not in mlp_only and (i + 1) % step == 0:
            return "moe", moe(hidden, num_experts=experts, top_k=f.int("num_experts_per_tok"),
                              expert_intermediate=f.int("moe_intermediate_size"),
                              shared_intermediate=f.int("shared_expert_intermediate_size", default=0, minimum=0),
                              shared_gate=True)
        return "dense", ffn(hidden, f.int("intermediate_size"))

    def full_attention() -> tuple:
        return attention(hidden=hidden, num_heads=heads, num_kv_heads=kv_heads, head_dim=head_dim,
                         qkv_bias=f.flag("attention_bias"), o_bias=f.flag("attention_bias"), qk_norm="head",
                         output_gate=gate)

    out = []
    for i, kind in enumerate(kinds):
        mixer = full_attention() if kind == "full" else gated_deltanet(f, hidden, model_type != "qwen3_next")
        mlp_kind, mlp_parts = mlp(i)
        out.append((f"{kind}+{mlp_kind}", (norm("input_layernorm", hidden), *mixer,
                                           norm("post_attention_layernorm", hidden), *mlp_parts)))

    notes = ["gated deltanet: state = linear_num_value_heads × key_dim × value_dim per layer, constant in context"]
    # An MTP module: pre_fc_norm_embedding, pre_fc_norm_hidden, fc (2H→H), one full-attention decoder layer of
    # the model's FFN kind, a final norm; it reuses the model's embedding and head
    # (mtp_use_dedicated_embeddings: false). Qwen3-Next's checkpoint ships one such layer though its config has
    # no key for it (vLLM's qwen3_next_mtp defaults num_nextn_predict_layers to 1); its 81.3B on the hub counts it.
    mtp_layers = f.int("mtp_num_hidden_layers", "num_nextn_predict_layers",
                       default=1 if model_type == "qwen3_next" else 0, minimum=0)
    extra = {}
    if mtp_layers:
        decoder = (norm("input_layernorm", hidden), *full_attention(), norm("post_attention_layernorm", hidden),
                   *mlp(layers - 1)[1])
        per_layer = 3 * hidden + 2 * hidden * hidden + sum(m.weight_elements for m in decoder)
        extra["mtp"] = mtp_layers * per_layer
    vision = f.get("vision_config", default=None)
    if isinstance(vision, dict) and vision.get("depth"):
        extra["vision"] = qwen_vision_parameters(vision, f"{f.source} vision_config")
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=f.int("vocab_size"), layers=out,
                    tied=f.flag("tie_word_embeddings"), max_context=f.int(*MAX_CONTEXT, default=None),
                    config=f.data, extra=extra, notes=tuple(notes))


def qwen_vision_parameters(v: dict, source: str = "vision_config") -> int:
    """Qwen3.5's vision tower (Qwen3-VL's without DeepStack mergers): a Conv3d patch embedding with bias, a learned
    position table, `depth` ViT blocks (two LayerNorms with bias, fused qkv and proj with bias, a GELU MLP with
    bias) and one patch merger (LayerNorm, then two linears over spatial_merge_size² concatenated patches)."""
    f = Fields(v, source)
    width, inner, out = f.int("hidden_size"), f.int("intermediate_size"), f.int("out_hidden_size")
    patch = f.int("in_channels", default=3) * f.int("temporal_patch_size", default=2) * f.int("patch_size") ** 2 \
        * width + width
    positions = f.int("num_position_embeddings") * width
    block = (2 * 2 * width + (width * 3 * width + 3 * width) + (width * width + width)
             + (width * inner + inner) + (inner * width + width))
    merged = width * f.int("spatial_merge_size", default=2) ** 2
    merger = 2 * width + (merged * merged + merged) + (merged * out + out)
    deepstack = len(f.sequence("deepstack_visual_indexes", default=[]))
    if deepstack:  # Qwen3-VL's extra mergers normalise after the shuffle (over `merged`)
        merger += deepstack * (2 * merged + (merged * merged + merged) + (merged * out + out))
    return patch + positions + f.int("depth") * block + merger


# ---- Nemotron-H, Nemotron-3 ----

def _nemotron_moe(f: Fields, hidden: int) -> tuple:
    """Nemotron-3 MoE: a sigmoid router on the full hidden state with a per-expert correction bias, relu² experts
    (up, down; not gated) and one shared relu² expert. LatentMoE (moe_latent_size): the routed experts work in
    a latent width, with fc1_latent_proj (hidden → latent) before and fc2_latent_proj (latent → hidden) after;
    the router and the shared expert stay at full width."""
    experts, top_k = f.int("n_routed_experts"), f.int("num_experts_per_tok")
    latent = f.int("moe_latent_size", default=0, minimum=0)
    bias = f.flag("mlp_bias")
    shared = f.int("moe_shared_expert_intermediate_size", default=0, minimum=0)  # one shared expert of this width
    width = latent or hidden
    parts = [Linear("router", hidden, experts, "ffn.router", quantizable=False),
             _scalar("router.e_score_correction_bias", experts, "ffn.router")]
    if latent:
        parts.append(Linear("fc1_latent_proj", hidden, latent, "ffn.routed_experts", bias))
    parts.append(Experts("experts", experts, top_k, width, f.int("moe_intermediate_size"), "ffn.routed_experts",
                         gated=False, bias=bias))
    if latent:
        parts.append(Linear("fc2_latent_proj", latent, hidden, "ffn.routed_experts", bias))
    if shared:
        parts += ffn(hidden, shared, gated=False, bias=bias, component="ffn.shared_experts", prefix="shared")
    return tuple(parts)


def nemotron_h(f: Fields, model_type: str, name: str) -> ModelSpec:
    """Nemotron-H / Nemotron-3: one mixer per layer, chosen by a letter of hybrid_override_pattern —
    M Mamba-2, * attention (GQA, no q/k norm, no RoPE scaling keys), - relu² MLP (up, down), E MoE — each behind a
    single RMSNorm. MTP (mtp_hybrid_override_pattern) is reported apart."""
    hidden, layers = f.int(*HIDDEN), f.int(*LAYERS)
    pattern = f.get("hybrid_override_pattern")
    if not isinstance(pattern, str) or len(pattern) != layers:
        raise_field(f, "hybrid_override_pattern", f"must be a string of one letter for each of the {layers} layers")
    heads = f.int(*HEADS)
    head_dim = f.head_dim(hidden, heads, "attention_head_dim", "head_dim")
    attn_bias = f.flag("attention_bias")

    def mixer(letter: str) -> tuple[str, tuple]:
        if letter == "M":
            return "mamba", mamba2(f, hidden)
        if letter == "*":
            return "full", attention(hidden=hidden, num_heads=heads, num_kv_heads=f.int(*KV_HEADS, default=heads),
                                     head_dim=head_dim, qkv_bias=attn_bias, o_bias=attn_bias)
        if letter == "-":
            return "dense", ffn(hidden, f.int("intermediate_size"), gated=False, bias=f.flag("mlp_bias"))
        if letter == "E":
            return "moe", _nemotron_moe(f, hidden)
        raise_field(f, "hybrid_override_pattern", f"has an unknown letter {letter!r} (known: M * - E)")

    out = []
    for letter in pattern:
        kind, parts = mixer(letter)
        out.append((kind, (norm("norm", hidden), *parts)))
    extra = {}
    mtp_pattern = f.get("mtp_hybrid_override_pattern", default="")
    if not isinstance(mtp_pattern, str):
        raise_field(f, "mtp_hybrid_override_pattern", "must be a string of mixer letters")
    mtp_layers = f.int("num_nextn_predict_layers", default=1 if mtp_pattern else 0, minimum=0)
    if mtp_pattern and mtp_layers:
        # Each MTP step: enorm, hnorm and eh_proj (2H → H) before its first layer, the pattern's layers (each
        # with its norm), final_layernorm after the last; the embedding and head are the model's.
        layers_ = sum(m.weight_elements for letter in mtp_pattern for m in (norm("norm", hidden), *mixer(letter)[1]))
        extra["mtp"] = mtp_layers * (3 * hidden + 2 * hidden * hidden + layers_)
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=f.int("vocab_size"), layers=out,
                    tied=f.flag("tie_word_embeddings"), max_context=f.int(*MAX_CONTEXT, default=None),
                    config=f.data, extra=extra,
                    notes=("mamba-2: state = mamba_num_heads × mamba_head_dim × ssm_state_size per layer, "
                           "constant in context",))


# ---- Nemotron-NAS (DeciLM) ----

def _ffn_mult_to_intermediate(ffn_mult: float, hidden: int) -> int:
    """DeciLM's rule: int(2·ffn_mult·hidden/3), rounded up to a multiple of 256."""
    size = int(2 * ffn_mult * hidden / 3)
    return size if size % 256 == 0 else size + 256 - size % 256


def nemotron_nas(f: Fields, model_type: str, name: str) -> ModelSpec:
    """Llama-Nemotron (DeciLM): Llama layers searched per layer (block_configs). Attention: GQA with
    num_heads / n_heads_in_group KV heads, or no_op (no norm, no weights), or replace_with_linear (one H×H
    linear). FFN: SwiGLU with intermediate from ffn_mult, or no_op, or replace_with_linear. The input norm exists
    only with attention and the post-attention norm only with an FFN."""
    hidden, heads = f.int(*HIDDEN), f.int(*HEADS)
    head_dim = f.head_dim(hidden, heads)
    blocks = f.get("block_configs")
    if not isinstance(blocks, list) or len(blocks) != f.int(*LAYERS) or not all(isinstance(b, dict) for b in blocks):
        raise_field(f, "block_configs", f"must list one object for each of the {f.int(*LAYERS)} layers")
    bias = f.flag("attention_bias")
    out = []
    for i, block in enumerate(blocks):
        a, m = block.get("attention") or {}, block.get("ffn") or {}
        parts, kind = [], "none"
        if not a.get("no_op"):
            parts.append(norm("input_layernorm", hidden))
            if a.get("replace_with_linear"):
                parts.append(Linear("linear_attn", hidden, hidden, "attention.full"))
                kind = "linear_attn"
            else:
                group = a.get("n_heads_in_group")
                if not group:
                    raise_field(f, f"block_configs[{i}].attention.n_heads_in_group", "is missing")
                window = a.get("window_length")
                kind = "sliding" if window else "full"
                parts += attention(hidden=hidden, num_heads=heads, num_kv_heads=heads // group, head_dim=head_dim,
                                   kind=kind, window=window, qkv_bias=bias, o_bias=bias)
        mlp_kind = "none"
        if not m.get("no_op"):
            parts.append(norm("post_attention_layernorm", hidden))
            if m.get("replace_with_linear"):
                parts.append(Linear("linear_mlp", hidden, hidden, "ffn.dense"))
                mlp_kind = "linear"
            else:
                mult = m.get("ffn_mult")
                if not isinstance(mult, (int, float)) or isinstance(mult, bool) or mult <= 0:
                    raise_field(f, f"block_configs[{i}].ffn.ffn_mult", f"must be a positive number, got {mult!r}")
                parts += ffn(hidden, _ffn_mult_to_intermediate(mult, hidden), bias=f.flag("mlp_bias"))
                mlp_kind = "dense"
        out.append((f"{kind}+{mlp_kind}", tuple(parts)))
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=f.int("vocab_size"), layers=out,
                    tied=f.flag("tie_word_embeddings"), max_context=f.int(*MAX_CONTEXT, default=None),
                    config=f.data)


# ---- MiMo-V2-Flash ----

def mimo_v2_flash(f: Fields, model_type: str, name: str) -> ModelSpec:
    """MiMo-V2-Flash: hybrid_layer_pattern 1 = sliding-window layer (swa_* heads and dims, a learned per-head
    sink when add_swa_attention_sink_bias), 0 = global layer; K is head_dim wide and V v_head_dim; no q/k norm.
    moe_layer_freq[i] = 1: a sigmoid router with correction bias over 256 SwiGLU experts, no shared expert;
    0: a dense SwiGLU FFN."""
    hidden, layers = f.int(*HIDDEN), f.int(*LAYERS)
    pattern, freq = f.get("hybrid_layer_pattern"), f.get("moe_layer_freq")
    for field_, values in (("hybrid_layer_pattern", pattern), ("moe_layer_freq", freq)):
        if not isinstance(values, list) or len(values) != layers:
            raise_field(f, field_, f"must list one entry for each of the {layers} layers")
    bias = f.flag("attention_bias")
    window = f.int("sliding_window_size", "sliding_window")
    out = []
    for i in range(layers):
        if pattern[i] == 1:
            mixer = attention(hidden=hidden, num_heads=f.int("swa_num_attention_heads"),
                              num_kv_heads=f.int("swa_num_key_value_heads"), head_dim=f.int("swa_head_dim"),
                              v_head_dim=f.int("swa_v_head_dim"), kind="sliding", window=window, qkv_bias=bias,
                              sinks=f.flag("add_swa_attention_sink_bias"))
            kind = "sliding"
        else:
            mixer = attention(hidden=hidden, num_heads=f.int(*HEADS), num_kv_heads=f.int(*KV_HEADS),
                              head_dim=f.int("head_dim"), v_head_dim=f.int("v_head_dim"), qkv_bias=bias,
                              sinks=f.flag("add_full_attention_sink_bias"))
            kind = "full"
        if freq[i]:
            mlp = moe(hidden, num_experts=f.int("n_routed_experts"), top_k=f.int("num_experts_per_tok"),
                      expert_intermediate=f.int("moe_intermediate_size"),
                      shared_intermediate=f.int("n_shared_experts", default=0, minimum=0)
                      * f.int("moe_intermediate_size"),
                      score_correction_bias=f.get("topk_method", default="noaux_tc") == "noaux_tc")
            kind += "+moe"
        else:
            mlp = ffn(hidden, f.int("intermediate_size"))
            kind += "+dense"
        out.append((kind, (norm("input_layernorm", hidden), *mixer, norm("post_attention_layernorm", hidden), *mlp)))
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=f.int("vocab_size"), layers=out,
                    tied=f.flag("tie_word_embeddings"), max_context=f.int(*MAX_CONTEXT, default=None),
                    config=f.data,
                    notes=("mimo-v2-flash: the checkpoint's MTP layers have no config key here and are not counted",))


# ---- Gemma 4 ----

def gemma4(f: Fields, model_type: str, name: str) -> ModelSpec:
    """Gemma 4 text decoder: sliding / full layers by layer_types; full layers use global_head_dim and, with
    attention_k_eq_v, num_global_key_value_heads heads whose one k_proj serves as K and V (no v_proj). q_norm and
    k_norm per head (v_norm has no weight). Each layer runs a dense GeGLU MLP and, with enable_moe_block, an MoE
    beside it (router: proj, a scale over hidden, a per-expert scale; its input norm has no weight), with four
    norms around attention/MLP plus three around the MoE. Tied head."""
    hidden, layers, heads = f.int(*HIDDEN), f.int(*LAYERS), f.int(*HEADS)
    types = f.get("layer_types")
    if not isinstance(types, list) or len(types) != layers:
        raise_field(f, "layer_types", f"must list one entry for each of the {layers} layers")
    if f.int("num_kv_shared_layers", default=0, minimum=0) or f.int("hidden_size_per_layer_input", default=0,
                                                                      minimum=0):
        raise_field(f, "num_kv_shared_layers / hidden_size_per_layer_input",
                    "is set: the shared-KV and per-layer-embedding variants (Gemma 4 E2B/E4B) are not supported")
    window = f.int("sliding_window")
    experts = f.int("num_experts", default=0, minimum=0) if f.flag("enable_moe_block") else 0
    out = []
    for kind_name in types:
        sliding = kind_name == "sliding_attention"
        k_eq_v = f.flag("attention_k_eq_v") and not sliding
        head_dim = f.int("head_dim") if sliding else f.int("global_head_dim", "head_dim")
        kv_heads = f.int("num_global_key_value_heads") if k_eq_v else f.int(*KV_HEADS)
        parts = [norm("input_layernorm", hidden),
                 *attention(hidden=hidden, num_heads=heads, num_kv_heads=kv_heads, head_dim=head_dim,
                            kind="sliding" if sliding else "full", window=window if sliding else None,
                            qkv_bias=f.flag("attention_bias"), o_bias=f.flag("attention_bias"), qk_norm="head",
                            k_equals_v=k_eq_v),
                 norm("post_attention_layernorm", hidden), norm("pre_feedforward_layernorm", hidden),
                 *ffn(hidden, f.int("intermediate_size"))]
        if experts:
            parts += [norm("post_feedforward_layernorm_1", hidden),
                      Linear("router", hidden, experts, "ffn.router", quantizable=False),
                      Vector("router.scale", hidden, "ffn.router", width=hidden, flops_per_element=1),
                      _scalar("router.per_expert_scale", experts, "ffn.router"),
                      norm("pre_feedforward_layernorm_2", hidden),
                      Experts("experts", experts, f.int("top_k_experts", "num_experts_per_tok"), hidden,
                              f.int("moe_intermediate_size"), "ffn.routed_experts"),
                      norm("post_feedforward_layernorm_2", hidden)]
        # layer_scalar (one element per layer) is a buffer, not a parameter: left out, as rotary tables are.
        parts.append(norm("post_feedforward_layernorm", hidden))
        out.append((("sliding" if sliding else "full") + ("+dense+moe" if experts else "+dense"), tuple(parts)))
    return assemble(name=name, model_type=model_type, hidden=hidden, vocab=f.int("vocab_size"), layers=out,
                    tied=f.flag("tie_word_embeddings", default=True), max_context=f.int(*MAX_CONTEXT, default=None),
                    config=f.data,
                    notes=("gemma-4: global layers cache one tensor for K and V (attention_k_eq_v)",))


ADAPTERS = {
    **dict.fromkeys(["qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"], qwen_hybrid),
    "nemotron_h": nemotron_h,
    "nemotron-nas": nemotron_nas,
    "mimo_v2_flash": mimo_v2_flash,
    "gemma4_text": gemma4,
}
