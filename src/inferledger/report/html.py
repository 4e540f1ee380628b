"""The self-contained HTML report: the web page's own files with its styles, scripts and data inlined, so the
report shows what `inferledger serve` shows, opens offline and can be sent as one file."""

from __future__ import annotations


def _inline_json(data) -> str:
    """JSON safe inside <script>: `<` only occurs in strings, where \\u003c is the same character."""
    from inferledger.cli._output import json_text

    return json_text(data).replace("<", "\\u003c")


def render_report(document: dict, charts: list[dict], command: str) -> str:
    """The report of one request document (as `request --json` prints it) and its chart specs."""
    from html import escape

    from inferledger.web import static_text

    page = static_text("index.html")
    inlined = {
        '<link rel="stylesheet" href="static/style.css">': f"<style>\n{static_text('style.css')}</style>",
        '<script src="static/charts.js"></script>': f"<script>\n{static_text('charts.js')}</script>",
        '<script src="static/app.js"></script>':
            f'<script type="application/json" id="inferledger-data">'
            f'{_inline_json({"document": document, "charts": charts, "command": command})}</script>\n'
            f"<script>\n{static_text('app.js')}</script>",
        "<title>inferledger</title>":
            f"<title>inferledger: {escape(document['model'])} on {escape(document['accelerator'])}</title>",
    }
    for tag, replacement in inlined.items():
        assert tag in page, f"index.html lost {tag}"  # the page and the report must stay one file set
        page = page.replace(tag, replacement)
    return page


def command_line(argv: list[str]) -> str:
    import shlex

    return "inferledger " + shlex.join(argv)
