"""The normalised model: what a forward step is made of, independent of how config.json spells it.

A ModelSpec is a list of Blocks; a Block is a list of Modules repeated `count` times (identical layers are one Block).
Every Module is one of a few kinds, and each kind knows only its shape: what it costs (FLOPs, bytes) for a given
number of tokens and context is operators.py's job, and every count the tool prints is a sum over those rows.

Components name where a parameter lives in the breakdown users read:
    embedding, attention.full, attention.sliding, attention.chunked, attention.mla, attention.linear,
    attention.mamba, ffn.dense, ffn.routed_experts, ffn.shared_experts, ffn.router, norm, lm_head
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Linear:
    """y = x·Wᵀ (+ b). A matmul costs 2·in·out FLOP per token."""

    name: str
    in_features: int
    out_features: int
    component: str
    bias: bool = False
    quantizable: bool = True  # False for modules a checkpoint keeps in high precision (modules_to_not_convert)

    @property
    def weight_elements(self) -> int:
        return self.in_features * self.out_features + (self.out_features if self.bias else 0)


@dataclass(frozen=True)
class Vector:
    """Small parameters applied elementwise per token: norm weights (and biases), attention sinks, SSM A/D/dt.
    `width` is how many activation elements per token it touches (for FLOPs and activation bytes)."""

    name: str
    elements: int
    component: str
    width: int = 0
    flops_per_element: int = 4  # RMSNorm: square, sum, scale, weight multiply

    @property
    def weight_elements(self) -> int:
        return self.elements


@dataclass(frozen=True)
class Conv1d:
    """Depthwise causal conv of a linear-attention / Mamba mixer: channels × kernel weights (+ bias)."""

    name: str
    channels: int
    kernel: int
    component: str
    bias: bool = False

    @property
    def weight_elements(self) -> int:
        return self.channels * self.kernel + (self.channels if self.bias else 0)


@dataclass(frozen=True)
class Embedding:
    """A lookup table: a token reads one row, so its FLOPs are zero and its bytes are one row (not the table)."""

    name: str
    rows: int
    dim: int
    component: str = "embedding"

    @property
    def weight_elements(self) -> int:
        return self.rows * self.dim


@dataclass(frozen=True)
class Experts:
    """num_experts FFNs of which each token uses top_k (routed), or all of them (shared: top_k == num_experts).
    gated: SwiGLU-style gate+up+down (3 matrices) vs up+down (2)."""

    name: str
    num_experts: int
    top_k: int
    hidden: int
    intermediate: int
    component: str
    gated: bool = True
    bias: bool = False
    # LatentMoE (Nemotron-3): experts work in a smaller latent space; the down/up latent projections are Linears.
    quantizable: bool = True

    @property
    def matrices(self) -> int:
        return 3 if self.gated else 2

    @property
    def bias_elements_per_expert(self) -> int:
        return ((2 if self.gated else 1) * self.intermediate + self.hidden) if self.bias else 0

    @property
    def elements_per_expert(self) -> int:
        return self.matrices * self.hidden * self.intermediate + self.bias_elements_per_expert

    @property
    def weight_elements(self) -> int:
        return self.num_experts * self.elements_per_expert


@dataclass(frozen=True)
class AttentionCore:
    """softmax(Q·Kᵀ)·V over the cached context: no weights. FLOPs grow with context; decode reads the KV cache.

    kind: full | sliding | chunked | mla. For MLA the cache holds one latent (kv_lora_rank) plus the decoupled
    RoPE key per token, shared by all heads; decode runs in the absorbed form (scores over the latent)."""

    name: str
    kind: str
    num_heads: int
    num_kv_heads: int
    qk_head_dim: int
    v_head_dim: int
    component: str
    window_tokens: int | None = None  # sliding window or attention chunk size
    kv_lora_rank: int = 0  # MLA only
    qk_rope_head_dim: int = 0  # MLA only
    k_equals_v: bool = False  # Gemma-4 global layers share one tensor for K and V in the cache

    @property
    def weight_elements(self) -> int:
        return 0

    @property
    def cache_elements_per_token(self) -> int:
        """Elements this layer stores per cached token (K and V, or MLA's latent + rope key)."""
        if self.kind == "mla":
            return self.kv_lora_rank + self.qk_rope_head_dim
        per_head = self.qk_head_dim + (0 if self.k_equals_v else self.v_head_dim)
        return self.num_kv_heads * per_head


@dataclass(frozen=True)
class StateCore:
    """A recurrent mixer (Gated DeltaNet linear attention, Mamba-2 SSM): a constant-size state per request
    instead of a cache that grows with context. state_elements: recurrent state; conv_elements: conv tail."""

    name: str
    kind: str  # linear | mamba
    state_elements: int
    conv_elements: int
    component: str
    state_bytes_per_element: float | None = None  # the config pins the state dtype (mamba_ssm_cache_dtype); else the KV format's

    @property
    def weight_elements(self) -> int:
        return 0


@dataclass(frozen=True)
class Weights:
    """A bare parameter count with no architecture (the seed's back-of-envelope): each weight does one multiply-add
    per token. No attention, no cache: a spec made of this alone cannot say how many requests fit."""

    name: str
    elements: float
    component: str = "weights"

    @property
    def weight_elements(self) -> int:
        return int(self.elements)


Module = Weights | Linear | Vector | Conv1d | Embedding | Experts | AttentionCore | StateCore


@dataclass(frozen=True)
class Block:
    """One kind of layer and the indices of the layers that are exactly this (identical layers share a Block).
    kind is a short label ("full+dense", "mla+moe"); the embedding and the head are Blocks with layers ()."""

    kind: str
    modules: tuple
    layers: tuple = ()

    @property
    def count(self) -> int:
        return max(1, len(self.layers))


@dataclass(frozen=True)
class ModelSpec:
    """A language model, normalised. Only the decoder stack that runs per token is in `blocks`;
    MTP heads and vision towers are counted on their own lines (`extra_parameters`), never in the total."""

    name: str
    model_type: str
    hidden_size: int
    vocab_size: int
    num_layers: int
    blocks: tuple  # of Block, in layer order; embedding and lm_head are Blocks of their own
    max_context_tokens: int | None
    tied_embeddings: bool = False  # lm_head shares the embedding's weights: counted once, still a matmul
    config_dtype: str | None = None  # torch_dtype / dtype in the config
    quantization: dict | None = None  # quantization_config as found
    extra_parameters: dict = field(default_factory=dict)  # {"mtp": n, "vision": n}: reported, not in total
    notes: tuple = ()  # accounting choices and facts no config key states
    # ((block index, module name), Precision) a checkpoint file states for its own tensors (GGUF quant types);
    # Formats.resolve applies them when no precision is asked for. Empty for a config.json.
    module_formats: tuple = ()
    checkpoint: object = None  # what the weight files hold (model.checkpoint.Checkpoint), when they were read

    @property
    def is_bare(self) -> bool:
        """Only a parameter count: no attention, no cache, no shapes (KV per token and concurrency are unknown)."""
        return self.model_type == "bare"

    @staticmethod
    def bare(parameters: float) -> ModelSpec:
        """The seed's estimate from a parameter count alone (`--params 7e9`): one block of weights."""
        return ModelSpec(name=f"{parameters:.3g} parameters", model_type="bare", hidden_size=0, vocab_size=0,
                         num_layers=0, blocks=(Block("model", (Weights("weights", float(parameters)),)),),
                         max_context_tokens=None,
                         notes=("a bare parameter count: no attention FLOPs, no KV cache and no activation "
                                "shapes are known; give a model for the full account",))

    def modules(self):
        """(block, module) for every module of every block."""
        for block in self.blocks:
            for module in block.modules:
                yield block, module
