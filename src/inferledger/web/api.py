"""The JSON API of `inferledger serve`: pure functions from a request's method, path, query and body to a status
and a JSON text, so they are tested without a socket.

    GET  /api/models    the bundled catalog: [{"name", "model_type", "layers", "max_context_tokens"}]
    GET  /api/gpus      the accelerator catalog, as `gpus --json` prints it
    GET  /api/formats   the weight and KV-cache format names
    POST /api/request   {"model" | "config" | "params", "gpu", "precision", "kv_precision", "isl", "osl", "batch",
                         "context", "overhead_ms", "gpu_memory_utilization", and the layout over cards: "tp", "pp",
                         "ep", "dp", "attention_dp", "gpus", "gpus_per_node", "link_gb_s", "inter_node",
                         "disaggregate"} → exactly what `request --json` prints
    POST /api/charts    the same fields → {"charts": [chart specs]} (report/charts.py)
    POST /api/report    the same fields → the self-contained HTML report (text/html)
    POST /api/diagnose  the log itself as the body; ?model=&gpu=&precision=&kv_precision=&name= and the layout
                        (tp=, pp=, ep=, dp=, attention_dp=, gpus=, gpus_per_node=, link_gb_s=, inter_node=)
                        → `diagnose --json`

Input from the client is untrusted: a body has a size limit, numbers a range, strings a length, and a model is a
catalog name, a hub id or an uploaded config.json object, never a path on the server. Every refusal is a 4xx with
{"error": "one line"}.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from types import SimpleNamespace

MAX_JSON_BYTES = 1 << 20  # a request, an uploaded config.json included (the largest real ones are ~100 KiB)
MAX_LOG_BYTES = 64 << 20  # one log upload
MAX_TEXT = 200  # characters in a model, gpu or format name

# Whole numbers and their ranges: generous beyond any real deployment, small enough that nothing overflows.
INTEGER_FIELDS = {"isl": (1, 10_485_760), "osl": (1, 1_048_576), "batch": (1, 65_536), "context": (1, 10_485_760),
                  **{name: (1, 4096) for name in ("tp", "pp", "ep", "dp", "attention_dp", "gpus", "gpus_per_node")}}
NUMBER_FIELDS = {"overhead_ms": (0.0, 10_000.0), "gpu_memory_utilization": (0.01, 1.0), "params": (1e6, 1e15),
                 "link_gb_s": (0.1, 100_000.0)}
TEXT_FIELDS = ("model", "gpu", "precision", "kv_precision", "inter_node")
FLAG_FIELDS = ("disaggregate",)
# The layout over cards, also taken by /api/diagnose as query parameters (the numbers, then the one text).
LAYOUT_FIELDS = ("tp", "pp", "ep", "dp", "attention_dp", "gpus", "gpus_per_node", "link_gb_s", "inter_node")
FIELDS = (*TEXT_FIELDS, *INTEGER_FIELDS, *NUMBER_FIELDS, *FLAG_FIELDS, "config")
HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}")


class ApiError(Exception):
    """A refusal: the status and the one line the client gets."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def error_text(message: str) -> str:
    return json.dumps({"error": message}, ensure_ascii=False) + "\n"


def parse_json_body(body: bytes) -> dict:
    if len(body) > MAX_JSON_BYTES:
        raise ApiError(413, f"the request body is {len(body):,} bytes; the limit is {MAX_JSON_BYTES:,}")
    try:
        value = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise ApiError(400, "the request body is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise ApiError(400, f"the request body is not valid JSON: {error.msg} at line {error.lineno} "
                            f"column {error.colno}") from None
    except RecursionError:
        raise ApiError(400, "the request body is nested too deeply to read") from None
    if not isinstance(value, dict):
        raise ApiError(400, f"the request body must be a JSON object of options, got {type(value).__name__}")
    return value


def _text(name: str, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ApiError(400, f"{name} must be a non-empty string, got {json.dumps(value)[:60]}")
    if len(value) > MAX_TEXT or "\x00" in value:
        raise ApiError(400, f"{name} must be at most {MAX_TEXT} characters of text")
    return value.strip()


def _number(name: str, value, low: float, high: float, whole: bool):
    kind = "a whole number" if whole else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not float(value).is_integer()):
        raise ApiError(400, f"{name} must be {kind}, got {json.dumps(value)[:60]}")
    if not math.isfinite(value) or not low <= value <= high:
        bounds = f"{low:,} and {high:,}" if whole else f"{low:g} and {high:g}"
        raise ApiError(400, f"{name} must be between {bounds}, got {value:g}")
    return int(value) if whole else float(value)


def request_options(body: dict):
    """The namespace `request` would parse from the same options, after checking every field."""
    from inferledger.cli.request import request_options as cli_options

    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise ApiError(400, f"unknown field(s): {', '.join(unknown)}; known: {', '.join(FIELDS)}")
    given = {}
    for name in TEXT_FIELDS:
        if body.get(name) is not None:
            given[name] = _text(name, body[name])
    for name, (low, high) in INTEGER_FIELDS.items():
        if body.get(name) is not None:
            given[name] = _number(name, body[name], low, high, whole=True)
    for name, (low, high) in NUMBER_FIELDS.items():
        if body.get(name) is not None:
            given[name] = _number(name, body[name], low, high, whole=False)
    for name in FLAG_FIELDS:
        if body.get(name) is not None:
            if not isinstance(body[name], bool):
                raise ApiError(400, f"{name} must be true or false, got {body[name]!r}")
            given[name] = body[name]
    sources = [name for name in ("model", "config", "params") if body.get(name) is not None]
    if len(sources) != 1:
        raise ApiError(400, "give exactly one of model (a catalog name or hub id), config (a config.json object) "
                            f"or params (a parameter count); got {', '.join(sources) or 'none'}")
    if "gpu" not in given:
        raise ApiError(400, "gpu is required: an accelerator name from GET /api/gpus")
    if body.get("config") is not None and not isinstance(body["config"], dict):
        raise ApiError(400, "config must be the JSON object of a config.json")
    return cli_options(**given), body.get("config")


def model_spec(options, config: dict | None):
    """The ModelSpec of a catalog name, a hub id or an uploaded config; None for a bare parameter count."""
    from inferledger.model import spec_from_config
    from inferledger.model.config import catalog_match, resolve_name

    if config is not None:
        label = config.get("_name_or_path") if isinstance(config.get("_name_or_path"), str) else None
        return spec_from_config(config, name=(label or "uploaded config.json")[:MAX_TEXT],
                                source="uploaded config.json")
    if options.model is None:
        return None
    name = options.model
    if not catalog_match(name) and not (HUB_ID.fullmatch(name) and ".." not in name):
        raise ApiError(400, f"model {name!r}: give a catalog name (GET /api/models) or a hub id org/name; "
                            "paths on the server are not accepted")
    config_dict, label = resolve_name(name)
    return spec_from_config(config_dict, name=label, source=label)


def accelerator_for(name: str):
    from inferledger.hardware import find_accelerator

    if "/" in name or "\\" in name or name.lower().endswith((".json", ".yaml", ".yml")):
        raise ApiError(400, f"gpu {name!r}: give a name from GET /api/gpus; files on the server are not accepted")
    return find_accelerator(name)


def resolved(body: dict):
    """(options, spec, accelerator) of a request body; a bare parameter count becomes ModelSpec.bare, as on the CLI."""
    from inferledger.model.spec import ModelSpec

    options, config = request_options(body)
    spec = model_spec(options, config)
    if spec is None:
        from inferledger.errors import positive_number

        spec = ModelSpec.bare(positive_number(options.params, "params"))
    return options, spec, accelerator_for(options.gpu)


def post_request(body: bytes) -> str:
    from inferledger.cli._output import json_text
    from inferledger.cli.request import request_document

    options, spec, accelerator = resolved(parse_json_body(body))
    return json_text(request_document(options, spec, accelerator)[1])


def post_charts(body: bytes) -> str:
    from inferledger.cli._output import json_text
    from inferledger.cli.request import request_document
    from inferledger.report.curves import request_charts

    options, spec, accelerator = resolved(parse_json_body(body))
    document = request_document(options, spec, accelerator)[1]
    return json_text({"charts": request_charts(options, spec, accelerator, document)})


def post_report(body: bytes) -> str:
    """The same options → the self-contained HTML report `inferledger report` writes (without the simulated load
    chart: the page asks for it on a click and should answer at once)."""
    from inferledger.cli.request import request_document
    from inferledger.report.curves import request_charts
    from inferledger.report.html import render_report

    options, spec, accelerator = resolved(parse_json_body(body))
    document = request_document(options, spec, accelerator)[1]
    return render_report(document, request_charts(options, spec, accelerator, document),
                         "inferledger serve (saved from the page)")


@lru_cache(maxsize=1)
def get_models() -> str:  # the bundled catalog does not change while the server runs
    from inferledger.cli._output import json_text
    from inferledger.errors import InferledgerError
    from inferledger.model import load_model
    from inferledger.model.config import catalog_names

    entries = []
    for name in catalog_names():
        try:
            spec = load_model(name)
        except InferledgerError:
            continue
        entries.append({"name": name, "model_type": spec.model_type, "layers": spec.num_layers,
                        "max_context_tokens": spec.max_context_tokens})
    return json_text(entries)


def get_gpus() -> str:
    from inferledger.cli._output import json_text
    from inferledger.hardware import load_catalog

    return json_text([part.to_dict() for part in load_catalog()])


def get_formats() -> str:
    from inferledger.cli._output import json_text
    from inferledger.precision import PRECISIONS

    return json_text(sorted(PRECISIONS))


def _layout_query(query: dict) -> dict:
    """diagnose_files' `parallel` and `topology_options` from the query's layout fields, checked as /api/request
    checks them (a query's values are text: a number is read from it first)."""
    from inferledger.cli._workload import layout_from, topology_options

    given = {}
    for name in LAYOUT_FIELDS[:-1]:
        if query.get(name):
            try:
                value = float(query[name])
            except ValueError:
                raise ApiError(400, f"{name} must be a number, got {query[name][:60]!r}") from None
            low, high = INTEGER_FIELDS.get(name) or NUMBER_FIELDS[name]
            given[name] = _number(name, value, low, high, whole=name in INTEGER_FIELDS)
    if query.get("inter_node"):
        given["inter_node"] = _text("inter_node", query["inter_node"])
    args = SimpleNamespace(**{name: given.get(name) for name in LAYOUT_FIELDS})
    return {"parallel": layout_from(args), "topology_options": topology_options(args)}


def post_diagnose(body: bytes, query: dict) -> str:
    """Diagnose one uploaded log. It is written to a private temporary folder under a fixed name (the client's
    file name is only shown, never used as a path) and removed afterwards."""
    import os
    import tempfile

    from inferledger.cli._output import json_text
    from inferledger.diagnose import diagnose_files

    if len(body) > MAX_LOG_BYTES:
        raise ApiError(413, f"the log is {len(body):,} bytes; the limit is {MAX_LOG_BYTES:,}")
    if not body:
        raise ApiError(400, "the request body is empty: send the log file itself as the body")
    unknown = sorted(set(query) - {"model", "gpu", "precision", "kv_precision", "name", *LAYOUT_FIELDS})
    if unknown:
        raise ApiError(400, f"unknown query parameter(s): {', '.join(unknown)}")
    options = {name: _text(name, query[name]) for name in ("model", "gpu", "precision", "kv_precision")
               if query.get(name)}
    options.update(_layout_query(query))
    if options.get("model"):
        options["model"] = model_spec(SimpleNamespace(model=options["model"]), None).name
    if options.get("gpu"):
        options["gpu"] = accelerator_for(options["gpu"]).name
    shown = re.sub(r"[^\w.-]", "_", query.get("name") or "upload.log")[:MAX_TEXT]
    with tempfile.TemporaryDirectory(prefix="inferledger-upload-") as folder:
        path = os.path.join(folder, "upload.log.gz" if body[:2] == b"\x1f\x8b" else "upload.log")
        with open(path, "wb") as out:
            out.write(body)
        diagnosis = diagnose_files([path], **options)
        return json_text(diagnosis).replace(path, shown).replace(folder, "")
