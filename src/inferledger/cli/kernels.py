"""`inferledger kernels FILE.csv`: floor and realistic time beside the measurement, for every row of a kernel CSV."""

from __future__ import annotations

HELP = "price every row of a measured-kernel CSV (gemm, attention, MLA, MoE): floor, realistic, measured, error"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag
    from inferledger.cli._workload import add_calibration_option

    parser.add_argument("csv", metavar="FILE.csv",
                        help="kernel latencies in the schema of aiconfigurator's collectors (the table is read "
                             "from the header)")
    add_calibration_option(parser)
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.calibration.accuracy import estimate_kernels, summary_document
    from inferledger.calibration.kernels import read_kernels
    from inferledger.cli._output import print_json
    from inferledger.cli._workload import load_calibration_option

    calibration = load_calibration_option(args)
    kernels = read_kernels(args.csv)
    estimates = estimate_kernels(kernels, calibration)
    summary = summary_document(estimates)
    if args.json:
        print_json({"file": args.csv, "table": kernels[0].table if kernels else None,
                    "calibration": {"source": calibration.source,
                                    "fitted_on": calibration.provenance.get("fitted_on")},
                    "rows": [e.to_dict() for e in estimates], "summary": summary})
        return 0
    from inferledger.report.kernels_text import render_kernels

    print(render_kernels(args.csv, summary))
    return 0
