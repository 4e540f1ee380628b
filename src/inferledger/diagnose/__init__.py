"""Diagnose serving logs and benchmark outputs: where does the time go?

    from inferledger.diagnose import diagnose_files
    diagnosis = diagnose_files(["server.log"], model="meta-llama/Llama-3.1-8B", gpu="H100")
    diagnosis.verdict, diagnosis.evidence, diagnosis.to_dict()

Pipeline: sources.py (stdin, pipes, FIFOs read once; two /metrics scrapes) -> read.py (clean, detect, stream) ->
parsers/* (Records, Skipped, Unread) -> accumulate.Accumulator (constant memory) -> the rule families
(rules_summary, rules_windows, rules_requests, rules_state; roofline.py against the hardware), whose thresholds and
confidences are the table in rules.py -> diagnosis.build (verdict, evidence, confidence, advice.py).
"""

from __future__ import annotations

import os
import tempfile

from inferledger.errors import InferledgerError, LogFormatError


def _read_into(acc, path: str, progress: bool, shown: str | None = None) -> dict:
    from inferledger.diagnose.read import (
        FAILURE,
        UNRECOGNISED,
        LogFile,
        detect_formats,
        fewer_collections,
        iter_records,
        leftover_records,
        unrecognised_lines,
    )

    log = LogFile.open(path)
    try:
        parsers = detect_formats(log)
    except LogFormatError:
        # No reader knows the opening. Where its serving numbers are (past 64 KB of start-up, say), a reader may know
        # them; if none does, they (a table of tok/s, a TTFT line) are listed unread and judged as insufficient data.
        # A file with none is no serving output and stays an error, unless its words are on serving (a pasted
        # question on a slow model, a command and its prose answer): that is read, with nothing to judge in it.
        from inferledger.diagnose.parsers import detect
        from inferledger.diagnose.rules import threshold

        parsers = detect(unrecognised_lines(log))
        if not parsers and (failures := _add_failures(acc, log, shown or path)):
            # No reader, but the engine's own out-of-memory failure: what ended the run is the reading.
            return _file_info(path, [FAILURE], log, failures)
        if not log.unread and log.serving_lines < threshold("read-no-numbers"):
            raise
        if not parsers:
            return _file_info(path, [UNRECOGNISED], log, 0)
        log = LogFile.open(path)
    bar = None
    if progress:
        from inferledger.report.progress import Progress

        bar = Progress(log.size_bytes, label=os.path.basename(path)[:30])
    before, named, runs = acc.records, acc.names_only, len(acc.summaries)
    # the failures failures.py reads, as counted before this file: a reader that counts them leaves them to it
    failed_before = {name: acc.events.get(name, 0.0) for name in ("oom", "kv_start_refusals", "too_long_rejections")}
    timed = acc.interval_count + acc.request_count
    failed = None
    try:
        with fewer_collections():
            acc.add_all(iter_records(log, parsers, bar, windows=True), shown or path)
    except (InferledgerError, KeyboardInterrupt, MemoryError, RecursionError):
        raise
    except Exception as error:  # noqa: BLE001 - a reader's bug on a line it did not expect
        # What was read before the line stands; the rest of the file is not read, and the diagnosis says so. A bug,
        # not the user's input: it costs one file's tail, never the run or a traceback.
        failed = (f"{shown or path}: the {'/'.join(module.NAME for module in parsers)} reader stopped on an internal "
                  f"error ({error.__class__.__name__}: {error}) after {acc.records - before} record(s); the rest of "
                  "the file was not read (a bug: please report it with the file)")
    finally:
        if bar is not None:
            bar.close()
    records = acc.records - before
    if failed is not None and not records:
        raise LogFormatError(failed)
    if records == acc.names_only - named and not log.skipped:
        # A known format's marker, but none of its lines (a model file's name at most): a client no reader knows that
        # shares a few words with one.
        from inferledger.diagnose.parsers import FALLBACKS, pick

        fallback = pick(log.head, FALLBACKS)[:1]
        if fallback:
            log, parsers = LogFile.open(path), fallback
            acc.add_all(iter_records(log, parsers, windows=True), shown or path)
            records = acc.records - before
    elif records and failed is None and not log.skipped and acc.interval_count + acc.request_count == timed \
            and len(acc.summaries) == runs:
        # A known format's lines, none timing the serving (start-up, a capacity): the figures may be prose around
        # them, which only the last-resort reader reads.
        acc.add_all(leftover_records(log, parsers), shown or path)
        records = acc.records - before
    if records:  # the launch command and the device the head names, for a file a reader (or the fallback) read
        from inferledger.diagnose.device import device_records
        from inferledger.diagnose.launch import launch_records

        for record in launch_records(log.head) + device_records(log.head):
            acc.add(record, shown or path)
    if len(acc.summaries) - runs >= 2:  # runs to compare: the weight format each line of the head states
        from inferledger.diagnose.weight_formats import stated_by_line

        acc.weight_formats[shown or path] = stated_by_line(log.head)
    counted = tuple(name for name, before in failed_before.items() if acc.events.get(name, 0.0) != before)
    figures = {name for name, entry in acc.capacity.items() if entry[2] == (shown or path)}
    if {"max_model_len_tokens", "kv_cache_tokens"} <= figures:
        # The reader read the refusal's figures (vLLM's max length over its KV pool): the capacity rules judge them.
        counted += ("kv_start_refusals",)
    # An out-of-memory failure, a start-up refusal or a refused request the reader does not know (vLLM V1's
    # engine-core traceback, a report quoting the engine's error), at the head or the end; and, whatever the reader
    # counted, a client's own timeouts (no reader counts those).
    records += _add_failures(acc, log, shown or path, counted)
    info = _file_info(path, [module.NAME for module in parsers], log, records)
    if failed is not None:
        info["reader_error"] = failed
    if records == 0 and log.skipped:
        # Lines of the format that could not be read (a JSON cut short, a value that is no number): a damaged file.
        names = "/".join(info["formats"])
        first = log.skipped_examples[0]
        raise LogFormatError(f"{path}: looks like {names} output but no line could be read "
                             f"({log.skipped} damaged line(s); line {first.line_number}: {first.reason})")
    # A recognised log with no line that carries numbers (start-up, a model loading, a slot opening, a histogram
    # cut before its total) is read as such: the diagnosis says there is nothing to judge, not that it is no log.
    return info


def _add_failures(acc, log, shown: str, counted: tuple = ()) -> int:
    """Fold the engine's out-of-memory failures, start-up KV refusals and refused requests the file holds
    (failures.py) into `acc`, less those of the kinds in `counted` (its reader counted them); how many."""
    from inferledger.diagnose.failures import COUNTED_AS, log_failure_records

    failures = [record for record in log_failure_records(log)
                if not {COUNTED_AS.get(name, name) for name in record.metrics} & set(counted)]
    for record in failures:
        acc.add(record, shown)
    return len(failures)


def _file_info(path: str, formats: list, log, records: int) -> dict:
    """What was read of one file, as the diagnosis lists it (files[])."""
    return {"path": path, "formats": formats, "lines": log.lines_read, "bytes": log.bytes_read, "records": records,
            "skipped_lines": log.skipped, "skipped_examples": [item.to_dict() for item in log.skipped_examples],
            "unread_lines": log.unread, "unread_examples": [item.to_dict() for item in log.unread_examples]}


def _read_path(acc, path: str, progress: bool, stdin) -> dict:
    """_read_into for a file; `-`, a pipe or a FIFO is read once into a temporary file first (sources.py)."""
    from inferledger.diagnose.sources import needs_spool, spooled

    if not needs_spool(path):
        return _read_into(acc, path, progress)
    with spooled(path, stdin) as spool:
        try:
            info = _read_into(acc, spool, False, shown=path)
        except LogFormatError as error:
            raise LogFormatError(str(error).replace(spool, path)) from None
    info["path"] = path
    info["spooled"] = True
    return info


def diagnose_files(paths, model: str | None = None, gpu: str | None = None, precision: str | None = None,
                   kv_precision: str | None = None, progress: bool = False, stdin=None, parallel=None,
                   topology_options: dict | None = None):
    """Read every file, fold their records together and return a Diagnosis. A path `-` reads `stdin` (a binary
    stream; standard input by default); pipes, FIFOs and /dev/stdin are read once. `parallel` (a
    parallelism.Parallelism) and `topology_options` (hardware.topology.topology_for's keywords) say how the model
    is spread over cards; by default the log's own statement, else one card, else the fewest cards that hold it.

    A file that cannot be read is listed with its error when others could; LogFormatError when none could.
    """
    from inferledger.diagnose.accumulate import Accumulator

    paths = [os.fspath(path) for path in paths]
    if not paths:
        raise LogFormatError("no log file given")
    acc = Accumulator()
    files = []
    errors = []
    for path in paths:
        try:
            files.append(_read_path(acc, path, progress, stdin))
        except LogFormatError as error:
            errors.append(str(error))
            files.append({"path": path, "error": str(error)})
    if len(errors) == len(paths):
        if len(errors) == 1:
            raise LogFormatError(errors[0])
        raise LogFormatError(f"none of the {len(paths)} files could be read; first: {errors[0]}")
    diagnosis = _diagnose(acc, files, model, gpu, precision, kv_precision, parallel, topology_options)
    for error in errors:
        diagnosis.notes.append("not read: " + error)
    diagnosis.warnings.extend(info["reader_error"] for info in files if "reader_error" in info)
    for name, how in (("generic-summary", "by metric words in `label: value unit` lines"),
                      ("generic-phrases", "from phrases: each clause's phase by its words, its numbers by their units"),
                      ("generic-cadence", "from a timestamped line repeated a streamed piece, each piece counted as one "
                                          "token"),
                      ("generic-progress", "from timestamped lines counting a prompt's tokens read so far")):
        guessed = [info["path"] for info in files if name in info.get("formats", ())]
        if guessed:
            diagnosis.warnings.append(f"{', '.join(guessed)}: no known format; read {how} (check the numbers the "
                                      "evidence quotes)")
    return diagnosis


def _diagnose(acc, files, model, gpu, precision, kv_precision, parallel=None, topology_options=None):
    """Rules, plus the hardware comparison with the model and GPU given, or named by the log itself."""
    from inferledger.diagnose.diagnosis import build
    from inferledger.diagnose.roofline import compare, log_hardware_findings
    from inferledger.diagnose.rules import Hardware

    notes, warnings = [], []
    named = {}
    several = sorted(acc.request_models) if len(acc.request_models) > 1 else []
    if not model and acc.labels.get("model") and not several:  # requests of several models: none is the model
        named["model"] = acc.labels["model"]
    if not gpu and acc.labels.get("gpu"):
        named["gpu"] = acc.labels["gpu"]
    roofline, roofline_findings, advice = None, log_hardware_findings(acc, gpu or named.get("gpu")), []
    use_model, use_gpu = model or named.get("model"), gpu or named.get("gpu")
    weights = precision or _runner_format(acc)  # what the ledger reads a weight as: the user's, else the log's own
    if use_model and use_gpu:
        try:
            roofline, found, advice = compare(acc, model=use_model, gpu=use_gpu, precision=weights,
                                              kv_precision=kv_precision, parallel=parallel,
                                              topology_options=topology_options)
            roofline_findings += _card_bound_only(acc, found, notes)
            if named:
                roofline.setdefault("lines", []).insert(0, "named by the log: " + ", ".join(
                    f"{key} {value}" for key, value in named.items()))
        except InferledgerError as error:
            # The log is the input; the model and GPU only add a comparison. One that cannot be resolved (a model
            # not bundled and not in the local hub cache, offline) costs that comparison, never the reading.
            given = {key: value for key, value in (("model", model), ("gpu", gpu)) if value}
            given.update(named)
            roofline, found, advice, instead = _named_comparison(acc, use_model, use_gpu, precision, kv_precision,
                                                                 parallel, topology_options, weights)
            if roofline is not None:
                roofline_findings += _card_bound_only(acc, found, notes)
                notes.append(f"{error}; judged with {instead}")
                warnings.append(f"{error}; judged with {instead}")
            else:
                notes.append(f"the hardware comparison could not use "
                             f"{', '.join(f'{k} {v!r}' for k, v in given.items())} ({error}); judged without the "
                             "hardware")
                warnings.append(f"{error}; the log is judged without the hardware comparison")
    elif model or gpu:
        try:
            roofline, _found, _advice = compare(acc, model=model, gpu=gpu)
        except InferledgerError as error:
            notes.append(f"{error}; judged without the hardware")
            warnings.append(f"{error}; the log is judged without the hardware comparison")
    else:
        notes.append("no --model/--gpu: per-token speed is judged by fixed cutoffs, not against the hardware "
                     "(the ledger's floor needs both)" + ("; the log names " + ", ".join(
            f"{key} {value!r}" for key, value in named.items()) if named else "")
                     + (f"; its requests name {len(several)} models ({', '.join(several)}), none taken as the model"
                        if several and not model else ""))
    if acc.labels.get("device_named") and acc.labels.get("backend") == "cpu" and not use_gpu:
        notes.append(f"the log names a CPU ({acc.labels['device_named']}) and no accelerator: speeds are judged by a "
                     "CPU's cutoff")
    hardware_judged = bool(roofline and "observed_decode_seconds_per_token" in roofline)
    sized = None
    if not hardware_judged and not use_gpu and use_model:
        from inferledger.diagnose.named_model import from_config, from_name

        # The log's own name first: it is what ran, quantization tag included (`…-70B-…_q6`); else --model's. A name
        # that states its format is read as written; else the config, when at hand, says what a step reads.
        names = [name for name in (acc.labels.get("model"), model) if name]
        sized = next(filter(None, (from_name(name, acc.labels.get("engine"), precision, stated_only=True)
                                   or from_config(name, precision) or from_name(name, acc.labels.get("engine"),
                                                                                precision)
                                   for name in names)), None)
        sized = _logged_format(acc, sized, precision)
    hardware = Hardware(judged=hardware_judged, compared=roofline is not None, card=bool(use_gpu),
                        window_prompt_peak_fraction=(roofline or {}).get("window_prompt_peak_fraction"),
                        **_card_bandwidth(use_gpu))
    diagnosis = build(acc, files, roofline, roofline_findings, advice, hardware=hardware, sized=sized)
    diagnosis.notes.extend(notes)
    diagnosis.warnings.extend(warnings)
    return diagnosis


def _card_bound_only(acc, found: list, notes: list) -> list:
    """The comparison's findings, less its judgements of decode against the card where the log's command keeps the
    experts in system memory (launch._experts_on_cpu): the card bounds none of that step, so it is said, not judged."""
    flag = acc.labels.get("experts_on_cpu")
    if not flag:
        return found
    kept = [finding for finding in found if not finding.rule.startswith(("hardware-decode", "hardware-named-decode"))]
    if len(kept) < len(found):
        notes.append(f"the command keeps the experts in system memory (`{flag}`): a decode step reads them at the "
                     "host's memory bandwidth, so its speed is not judged against the card's")
    return kept


def _card_bandwidth(gpu: str | None) -> dict:
    """The card's name and memory bandwidth (Hardware's fields), empty when none is given or the catalogue lacks it."""
    from inferledger.diagnose.roofline import catalogued_card

    card = catalogued_card(gpu)
    if card is None:
        return {}
    return {"card_name": card.name, "bandwidth_bytes_per_second": card.memory_bandwidth_bytes_per_second}


def _runner_format(acc):
    """The GGML format a llama.cpp or ollama run's own lines state (llama.cpp's file type line, else the format tag of
    the model file or ollama tag it names) as a Precision for the ledger, or None: a GGUF run is judged on the bytes
    it stores, not on the checkpoint's bf16."""
    from inferledger.diagnose.named_model import stated_format
    from inferledger.precision import ggml_format

    if acc.labels.get("engine") not in ("llama.cpp", "ollama"):
        # another runner of a GGUF file its head names (launch._loaded_gguf): the file's format; else the one format
        # every row of a results table names in its model cell (`qwen3.8:27b-q4_K_M`)
        stated = stated_format(acc.labels["weights_format"]) if acc.labels.get("weights_format") \
            else _rows_format(acc)
        return ggml_format(stated[0].upper(), stated[1]) if stated is not None else None
    for text in (acc.labels.get("weights_format"), acc.labels.get("model")):
        stated = stated_format(text) if text else None
        if stated is not None:
            return ggml_format(stated[0].upper(), stated[1])
    return None


def _rows_format(acc) -> tuple | None:
    """(tag, bits) of the one format every summary's model cell states, or None: a row that states none, or rows of
    several formats (a comparison of quantisations: each row its own)."""
    from inferledger.diagnose.named_model import stated_format

    names = [record.labels.get("section_model") for record, _file in acc.summaries]
    if not names or not all(names):
        return None
    stated = {stated_format(name) for name in names}
    return stated.pop() if len(stated) == 1 and None not in stated else None


def _logged_format(acc, sized, precision: str | None):
    """`sized` with the bits a weight the log's own file size gives (llama.cpp's `model size` / `file size`, ollama's
    weights total: the whole model on one host) in place of a format guessed from the name or the engine's default;
    as it was when the user gave --precision, the log states no size, or the figure cannot be a weight's bits."""
    entry = acc.capacity.get("weights_bytes")
    if sized is None or precision or entry is None or not str(entry[3]).startswith(("llamacpp", "ollama")):
        return sized
    bits = entry[0] * 8 / sized.total_params
    if not 1.0 <= bits <= 33.0:
        return sized  # a size that is not this model's whole file (a shard, another model, a misread name)
    from dataclasses import replace

    return replace(sized, bits_per_weight=bits, format_source="the log's file size")


def _named_comparison(acc, model: str, gpu: str, precision: str | None, kv_precision: str | None, parallel=None,
                      topology_options=None, weights=None):
    """(section, findings, advice, what was used) when the model's config.json cannot be had but the GPU is known:
    the bundled config of the base it was tuned from (same architecture), else the floor of the weights its name
    states; (None, [], [], "") when neither. `weights`: the format the log states it ran (_runner_format), before
    the one the name states."""
    from inferledger.diagnose.named_model import catalog_twin, from_name, twin_relation
    from inferledger.diagnose.roofline import compare, named_floor_findings
    from inferledger.hardware import find_accelerator

    try:
        accelerator = find_accelerator(gpu)
    except InferledgerError:
        return None, [], [], ""
    twin = catalog_twin(model)
    if twin is not None:
        base, stated = twin
        try:
            section, found, advice = compare(acc, model=base, gpu=gpu, precision=weights or stated,
                                             kv_precision=kv_precision, parallel=parallel,
                                             topology_options=topology_options)
        except InferledgerError:
            pass
        else:
            relation = twin_relation(model, base)
            section.setdefault("lines", []).insert(0, f"{model}: not at hand; the config of {base}, {relation}")
            section["architecture_from"] = base
            return section, found, advice, f"the config of {base}, {relation}"
    try:
        named = from_name(model, engine=acc.labels.get("engine"), precision=precision)
    except InferledgerError:
        return None, [], [], ""
    if named is None:
        return None, [], [], ""
    if not precision and weights is not None and not named.format_source.startswith("the name's"):
        # The runner's own file type or model file (`ggml-model-f16.bin`) over the engine's usual format.
        from dataclasses import replace

        named = replace(named, bits_per_weight=weights.bytes_per_element * 8,
                        format_source=f"the log's {weights.name}")
    section, found = named_floor_findings(acc, named, accelerator)
    return section, found, [], "the size and format its name states (decode against the weights' floor)"


def diagnose_url(url: str, interval_seconds: float = 5.0, timeout_seconds: float = 10.0, **options):
    """Scrape a live `/metrics` endpoint twice, `interval_seconds` apart, and diagnose the window between: gauges
    from the second scrape, rates from the counters' differences. interval_seconds 0 scrapes once (a snapshot)."""
    from inferledger.diagnose.accumulate import Accumulator
    from inferledger.diagnose.sources import scrape, scrape_twice, window_records

    if interval_seconds <= 0:
        text = scrape(url, timeout_seconds)
        handle, path = tempfile.mkstemp(prefix="inferledger-scrape-", suffix=".prom")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            diagnosis = diagnose_files([path], **options)
        finally:
            os.unlink(path)
        for info in diagnosis.files:
            if info.get("path") == path:
                info["path"] = url
        return diagnosis
    first, second, seconds = scrape_twice(url, interval_seconds, timeout_seconds)
    records, rates = window_records(first, second, seconds)
    if not records:
        raise LogFormatError(f"{url}: the endpoint answered, but with no Prometheus samples the diagnosis reads")
    acc = Accumulator()
    for record in records:
        acc.add(record, url)
    files = [{"path": url, "formats": ["prometheus"], "scrapes": 2, "interval_seconds": seconds,
              "lines": second.count("\n"), "bytes": len(second), "records": len(records), "skipped_lines": 0,
              "skipped_examples": [], "rates": rates}]
    return _diagnose(acc, files, options.get("model"), options.get("gpu"), options.get("precision"),
                     options.get("kv_precision"), options.get("parallel"), options.get("topology_options"))


def scrape(url: str, timeout_seconds: float = 10.0) -> str:
    """The text of a Prometheus endpoint (kept here for callers of the first edition; see sources.scrape)."""
    from inferledger.diagnose.sources import scrape as fetch

    return fetch(url, timeout_seconds)


__all__ = ["diagnose_files", "diagnose_url", "scrape"]
