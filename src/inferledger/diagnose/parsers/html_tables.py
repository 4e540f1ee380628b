"""HTML tables (`<table>…</table>`, a model card's or a docs page's, a cell a line or a row a line) written back as
Markdown tables, so the table reader reads them as it reads any other.

A cell spanning columns (`colspan`) or rows (`rowspan`) is repeated into each it spans. The header rows (those in
`<thead>`, else the leading rows of `<th>` cells only) merge into one, a column's texts joined by ` - `, the text with
figures first wherever it stood: a group over its columns (`Instruction Following<br>256 / 128` over `Latency (s)`
and `QPD`, or `Latency (s)` over `RAG<br>prefill: 1024 tokens<br>decode: 128 tokens`) becomes the setting before
each measure (`Instruction Following 256 / 128 - Latency (s)`), as a report that repeats it writes it. Each row
stands at the line of its `<tr>`; a table not closed within MAX_LINES lines is passed on as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MAX_LINES = 5000
_OPEN = re.compile(r"<table\b", re.IGNORECASE)
_CLOSE = re.compile(r"</table\s*>", re.IGNORECASE)


def unrolled(lines) -> Iterator:
    """(line number, text) of the lines, each HTML table in them as Markdown rows (a header, its rule, the rows)."""
    held: list = []
    for line_number, line in lines:
        if not held:
            if "<t" not in line and "<T" not in line or not _OPEN.search(line):
                yield line_number, line
                continue
        held.append((line_number, line))
        if _CLOSE.search(line) or len(held) >= MAX_LINES:
            yield from _written(held)
            held = []
    yield from _written(held)


def _written(held: list) -> Iterator:
    rows = _rows(held) if held and _CLOSE.search(held[-1][1]) else None
    if not rows:
        yield from held
        return
    width = max(len(cells) for _line, cells, _head in rows)
    grid = [(line, cells + [""] * (width - len(cells))) for line, cells, _head in rows]
    heads = next((index for index, (_line, _cells, head) in enumerate(rows) if not head), len(rows))
    if 0 < heads < len(rows):
        grid = [(grid[0][0], [_merged([cells[index] for _line, cells in grid[:heads]]) for index in range(width)]),
                *grid[heads:]]
    header_line, header = grid[0]
    yield header_line, "| " + " | ".join(header) + " |"
    yield header_line, "|" + "---|" * width
    for line, cells in grid[1:]:
        yield line, "| " + " | ".join(cells) + " |"


def _merged(texts: list) -> str:
    """One column's header texts, top to bottom, as one name: each once, the setting (the text with figures) before
    the measure."""
    kept = [text for index, text in enumerate(texts) if text and text not in texts[:index]]
    return " - ".join(sorted(kept, key=lambda text: not re.search(r"\d", text)))


def _rows(held: list) -> list:
    """[(line number, cells, is a header row)] of the table, spans repeated; [] when it holds no row."""
    from html.parser import HTMLParser

    first_line = held[0][0]
    rows: list = []  # (line, [(text, colspan, rowspan)], header)

    class _Reader(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.section = ""
            self.row = None
            self.cell = None

        def handle_starttag(self, tag, attrs):
            if tag in ("thead", "tbody", "tfoot"):
                self.section = tag
            elif tag == "tr":
                self._end_row()
                self.row = (first_line + self.getpos()[0] - 1, [], self.section == "thead", [])
            elif tag in ("td", "th"):
                self._end_cell()
                if self.row is None:
                    self.row = (first_line + self.getpos()[0] - 1, [], self.section == "thead", [])
                spans = dict(attrs)
                self.cell = ([], _span(spans.get("colspan")), _span(spans.get("rowspan")), tag == "th")
            elif tag == "br" and self.cell is not None:
                self.cell[0].append(" ")

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self._end_cell()
            elif tag == "tr":
                self._end_row()
            elif tag in ("thead", "tbody", "tfoot"):
                self._end_row()
                self.section = ""

        def handle_data(self, data):
            if self.cell is not None:
                self.cell[0].append(data)

        def _end_cell(self):
            if self.cell is not None and self.row is not None:
                words, colspan, rowspan, heading = self.cell
                text = " ".join("".join(words).split())
                self.row[1].append((text, colspan, rowspan))
                if text:  # an empty corner cell, `<td></td>` or `<th></th>`, says nothing of the row
                    self.row[3].append(heading)
            self.cell = None

        def _end_row(self):
            self._end_cell()
            if self.row is not None and self.row[1]:
                line, cells, in_head, headings = self.row
                rows.append((line, cells, in_head or (not any(not row[2] for row in rows) and all(headings)
                                                      and not any(_looks_numeric(text) for text, _c, _r in cells))))
            self.row = None

    reader = _Reader()
    reader.feed("\n".join(line for _line, line in held))
    reader.close()
    reader._end_row()
    return _spread(rows)


def _span(value) -> int:
    try:
        return max(1, min(int(value), 64))
    except (TypeError, ValueError):
        return 1


def _looks_numeric(text: str) -> bool:
    return bool(re.fullmatch(r"[~≈<>]?\s*-?\d[\d,]*(?:\.\d+)?\s*%?", text))


def _spread(rows: list) -> list:
    """The rows with each spanning cell repeated into the columns and rows it spans."""
    pending: dict = {}  # column -> (text, rows still to fill)
    spread = []
    for line, cells, header in rows:
        out: list = []
        for text, colspan, rowspan in cells:
            _fill(out, pending)
            for _ in range(colspan):
                if rowspan > 1:
                    pending[len(out)] = (text, rowspan - 1)
                out.append(text)
        _fill(out, pending)
        spread.append((line, out, header))
    return spread


def _fill(out: list, pending: dict) -> None:
    """The cells rows above span into, from the next column of `out` on, each owed one row less."""
    while len(out) in pending:
        text, left = pending[len(out)]
        out.append(text)
        if left <= 1:
            del pending[len(out) - 1]
        else:
            pending[len(out) - 1] = (text, left - 1)
