"""`inferledger calibrate FILE.csv -o params.json`: fit the realistic estimate to your own kernel measurements."""

from __future__ import annotations

HELP = "fit the realistic estimate's parameters to measured-kernel CSVs; report the error on held-out rows"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag

    parser.add_argument("csv", nargs="+", metavar="FILE.csv",
                        help="kernel latencies in the schema of aiconfigurator's collectors (gemm, attention, "
                             "MLA, MoE tables; the table is read from each header)")
    parser.add_argument("-o", "--output", required=True, metavar="params.json",
                        help="where to write the fitted parameters (load them with --calibration)")
    add_json_flag(parser)


def run(args) -> int:
    import os

    from inferledger.calibration.accuracy import estimate_kernels, summary_document
    from inferledger.calibration.fit import fit_files, write
    from inferledger.cli._output import print_json
    from inferledger.errors import CalibrationError

    if os.path.abspath(args.output) in {os.path.abspath(p) for p in args.csv}:
        raise CalibrationError(f"-o {args.output} is one of the input files; write the parameters elsewhere")
    calibration, kernels = fit_files(args.csv)
    write(calibration, args.output)
    summary = summary_document(estimate_kernels(kernels, calibration))
    entries = [e.to_dict() for e in sorted(calibration.entries.values(), key=lambda e: (e.kind, e.generation, e.dtype))]
    if args.json:
        print_json({"output": args.output, "entries": entries, "summary": summary,
                    "provenance": calibration.provenance})
        return 0
    from inferledger.report.kernels_text import render_calibration

    print(render_calibration(args.output, entries, summary))
    return 0
