"""`inferledger calibrate FILE... -o params.json`: fit the realistic estimate to your own measurements."""

from __future__ import annotations

HELP = "fit the realistic estimate to measured-kernel CSVs (and a serving log's per-step overhead); report the error"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_calibration_option, add_format_options

    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="kernel latencies in the schema of aiconfigurator's collectors (gemm, attention, MLA, "
                             "MoE tables, read from each header), and/or serving logs or benchmark outputs that "
                             "`diagnose` reads (they fit the per-step overhead; give --model and --gpu)")
    parser.add_argument("-o", "--output", required=True, metavar="params.json",
                        help="where to write the fitted parameters (load them with --calibration)")
    parser.add_argument("--model", "-m", metavar="MODEL", help="the model the logs served")
    parser.add_argument("--gpu", "-g", metavar="NAME", help="the card the logs ran on")
    add_format_options(parser)
    add_calibration_option(parser)
    add_json_flag(parser)


def _is_kernel_table(path: str) -> bool:
    import csv

    from inferledger.calibration.kernels import table_of
    from inferledger.errors import CalibrationError

    try:
        with open(path, encoding="utf-8", newline="") as handle:
            header = next(csv.reader([handle.readline()]), [])
        table_of(header)
        return True
    except (OSError, UnicodeDecodeError, CalibrationError):
        return False


def run(args) -> int:
    import os

    from inferledger.cli._output import print_json
    from inferledger.cli._workload import load_calibration_option
    from inferledger.errors import CalibrationError

    if os.path.abspath(args.output) in {os.path.abspath(p) for p in args.files}:
        raise CalibrationError(f"-o {args.output} is one of the input files; write the parameters elsewhere")
    for path in args.files:
        if not os.path.isfile(path):
            raise CalibrationError(f"{path} not found")
    tables = [p for p in args.files if _is_kernel_table(p)]
    logs = [p for p in args.files if p not in tables]
    document: dict = {"output": args.output}
    if tables:
        from inferledger.calibration.accuracy import estimate_kernels, summary_document
        from inferledger.calibration.fit import fit_files

        calibration, kernels = fit_files(tables)
        document["summary"] = summary_document(estimate_kernels(kernels, calibration))
    else:
        calibration = load_calibration_option(args)  # logs alone: the kernel fit is the bundled (or given) one
    if logs:
        from inferledger.calibration.from_log import overhead_from_logs

        calibration, document["step_overhead"] = overhead_from_logs(
            logs, args.model, args.gpu, calibration, args.precision, args.kv_precision)
    from inferledger.calibration.fit import write

    write(calibration, args.output)
    entries = [e.to_dict() for e in sorted(calibration.entries.values(), key=lambda e: (e.kind, e.generation, e.dtype))]
    document.update(entries=entries, step_overhead_seconds=calibration.step_overhead_seconds,
                    provenance=calibration.provenance)
    if args.json:
        print_json(document)
        return 0
    from inferledger.report.kernels_text import render_calibration

    print(render_calibration(document))
    return 0
