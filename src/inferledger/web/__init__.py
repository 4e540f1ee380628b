"""The local web page (`inferledger serve`) and its JSON API; the HTML report reuses the page's files."""

from __future__ import annotations


def static_text(name: str) -> str:
    """One of the page's files (index.html, style.css, charts.js, app.js), from the installed package."""
    from importlib import resources

    return resources.files("inferledger.web").joinpath("static", name.removeprefix("static/")).read_text("utf-8")
