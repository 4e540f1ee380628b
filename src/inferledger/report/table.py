"""Plain-text tables for the terminal. No dependency: a table is a header and rows of strings."""

from __future__ import annotations


def render_table(header: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """Columns padded to their widest cell. align: one char per column, 'l' or 'r' (default: first l, rest r)."""
    columns = len(header)
    align = align or ("l" + "r" * (columns - 1))
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(columns)]

    def line(cells):
        out = []
        for i, cell in enumerate(cells):
            cell = str(cell)
            out.append(cell.ljust(widths[i]) if align[i] == "l" else cell.rjust(widths[i]))
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])
