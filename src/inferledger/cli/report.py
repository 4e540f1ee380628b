"""`inferledger report … -o report.html`: the account of one request as one self-contained HTML file."""

from __future__ import annotations

HELP = "write the account of one request as a self-contained HTML report (tables, interactive plots, no network)"


def add_arguments(parser) -> None:
    from inferledger.cli.request import add_request_options

    add_request_options(parser)
    parser.add_argument("--output", "-o", required=True, metavar="FILE", help="the HTML file to write")


def run(args) -> int:
    import sys

    from inferledger.cli._output import print_warnings
    from inferledger.cli._workload import load
    from inferledger.cli.request import request_document
    from inferledger.errors import BadArgument
    from inferledger.report.curves import request_charts
    from inferledger.report.html import command_line, render_report

    spec, accelerator = load(args)
    account, document = request_document(args, spec, accelerator)
    print_warnings("report", account.warnings)
    charts = request_charts(args, spec, accelerator, document, with_load=True)
    text = render_report(document, charts, command_line(sys.argv[1:]))
    try:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as error:
        raise BadArgument(f"--output {args.output}: cannot write ({error.strerror or error})") from None
    print(f"wrote {args.output}: {document['model']} on {document['accelerator']}, the account and its charts in "
          "one file that opens in any browser, offline")
    return 0
