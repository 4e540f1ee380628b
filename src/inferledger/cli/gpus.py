"""`inferledger gpus [NAME]`: the accelerator catalog, or one part in full with its sources."""

from __future__ import annotations

HELP = "list the accelerator catalog, or show one part (datasheet figures, sources)"


def add_arguments(parser) -> None:
    from inferledger.cli._output import add_json_flag

    parser.add_argument(
        "name", nargs="?", metavar="NAME",
        help="an accelerator (h100, 'a100 80gb', mi300x, ...) or a .json/.yaml file describing your own part",
    )
    parser.add_argument(
        "--accelerators", action="append", default=[], metavar="FILE",
        help="add the parts in FILE (.json/.yaml) to the catalog; repeatable (also: $INFERLEDGER_ACCELERATORS)",
    )
    add_json_flag(parser)


def run(args) -> int:
    from inferledger.cli._output import print_json
    from inferledger.hardware import find_accelerator, load_catalog

    if args.name:
        part = find_accelerator(args.name, extra_files=args.accelerators)
        if args.json:
            print_json(part)
        else:
            print(_detail(part))
        return 0
    catalog = load_catalog(args.accelerators)
    if args.json:
        print_json([part.to_dict() for part in catalog])
    else:
        print(_table(catalog))
    return 0


def _fixed(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _table(catalog) -> str:
    from inferledger.report.table import render_table

    header = ["id", "name", "memory GiB", "bandwidth GB/s", "bf16 TFLOP/s", "fp8 TFLOP/s", "FLOP/byte bf16"]
    rows = []
    for part in catalog:
        bf16 = part.peak_flops_per_second("bf16")
        fp8 = part.peak_flops_per_second("fp8")
        rows.append([
            part.name,
            part.display_name,
            _fixed(part.memory_bytes / 2**30),
            _fixed(part.memory_bandwidth_bytes_per_second / 1e9, 0),
            _fixed(None if bf16 is None else bf16 / 1e12),
            _fixed(None if fp8 is None else fp8 / 1e12),
            _fixed(part.flops_per_byte("bf16"), 0),
        ])
    note = ("Dense peaks (datasheet 'with sparsity' figures halved). GiB = 2**30 bytes, GB = 1e9 bytes. "
            "FLOP/byte = peak / bandwidth: below it a kernel is bandwidth bound.\n"
            "`inferledger gpus NAME` shows one part with its sources.")
    return render_table(header, rows, align="llrrrrr") + "\n\n" + note


def _detail(part) -> str:
    from inferledger.hardware import DTYPES
    from inferledger.report.table import render_table

    link = part.interconnect_bandwidth_bytes_per_second
    lines = [
        f"{part.display_name}  [{part.name}]  vendor: {part.vendor}",
        f"  memory         {part.memory_bytes / 2**30:,.1f} GiB ({part.memory_bytes:,} bytes = {part.memory_bytes / 1e9:,.1f} GB)",
        f"  bandwidth      {part.memory_bandwidth_bytes_per_second / 1e9:,.0f} GB/s",
        f"  interconnect   {part.interconnect_name or '-'}"
        + ("" if link is None else f": {link / 1e9:,.2f} GB/s per direction"),
    ]
    if part.aliases:
        lines.append(f"  aliases        {', '.join(part.aliases)}")
    if part.origin != "bundled":
        lines.append(f"  from file      {part.origin}")
    rows = [
        [dtype, _fixed(part.peak_flops_per_second_by_dtype[dtype] / 1e12), _fixed(part.flops_per_byte(dtype), 0)]
        for dtype in DTYPES if dtype in part.peak_flops_per_second_by_dtype
    ]
    lines += ["", render_table(["dtype", "dense peak TFLOP/s", "FLOP/byte"], rows)]
    if part.notes:
        lines += ["", "notes:"] + [f"  - {note}" for note in part.notes]
    if part.sources:
        lines += ["", "sources:"]
        for source in part.sources:
            figures = source.get("figures")
            suffix = f"  [{', '.join(figures)}]" if figures else ""
            lines.append(f"  - {source.get('title', '')}: {source.get('url', '')}{suffix}")
    return "\n".join(lines)
