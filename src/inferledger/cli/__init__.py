"""The `inferledger` command line: one module per verb, each a thin layer over the library.

A verb module defines HELP (one line), add_arguments(parser) and run(args) -> exit status. Verb modules import
only argparse-level things at the top; the library (and anything heavy) is imported inside run(), so
`inferledger --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Order is the order shown in --help. A verb is listed here only once its module exists (no placeholders).
VERBS = ["model", "models", "gpus", "request", "fit", "compare", "tokens", "workload", "simulate", "plan", "diagnose",
         "report", "serve", "bench", "kernels", "calibrate"]


def _verb_modules():
    for verb in VERBS:
        try:
            yield verb, importlib.import_module(f"inferledger.cli.{verb}")
        except ModuleNotFoundError as error:
            if error.name != f"inferledger.cli.{verb}":
                raise


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, the other verbs are listed (for --help) but their options are not built, which
    keeps a single command's start-up short."""
    from inferledger import __version__

    parser = argparse.ArgumentParser(
        prog="inferledger",
        description="The ledger of an LLM inference request: parameters, bytes, FLOPs and seconds.",
    )
    parser.add_argument("--version", action="version", version=f"inferledger {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="COMMAND")
    for verb, module in _verb_modules():
        verb_parser = sub.add_parser(verb, help=module.HELP, description=module.HELP)
        if only is None or verb == only:
            module.add_arguments(verb_parser)
        verb_parser.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    from inferledger.errors import InferledgerError

    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=argv[0] if argv and argv[0] in VERBS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0
    try:
        return args._run(args) or 0
    except InferledgerError as error:
        print(f"inferledger {args.verb}: error: {error}", file=sys.stderr)
        return 1
    except RecursionError:  # json/yaml on input nested thousands deep: bad input, not a bug
        print(f"inferledger {args.verb}: error: the input is nested too deeply to read", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"inferledger {args.verb}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - a bug: one line, as for bad input; the traceback on request
        if os.environ.get("INFERLEDGER_TRACEBACK"):
            raise
        print(f"inferledger {args.verb}: internal error: {error.__class__.__name__}: {error} (a bug: please report "
              "it with the command and its input; INFERLEDGER_TRACEBACK=1 shows where)", file=sys.stderr)
        return 2
