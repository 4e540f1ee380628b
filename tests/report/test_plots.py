"""--plot writes a real PNG or SVG (magic bytes), keeps --json clean, and the start path never imports
matplotlib."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib", reason="the `plot` extra (matplotlib) is not installed")


def run(*args):
    return subprocess.run([sys.executable, "-m", "inferledger", *args], capture_output=True, text=True)


def test_request_plot_png_and_json_stays_clean(tmp_path):
    path = tmp_path / "request.png"
    result = run("request", "-m", "meta-llama/Llama-3.2-1B", "-g", "l4", "--plot", str(path), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["model"] == "meta-llama/Llama-3.2-1B"
    assert f"plot written to {path}" in result.stderr
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fit_plot_svg(tmp_path):
    path = tmp_path / "fit.svg"
    result = run("fit", "-m", "meta-llama/Llama-3.2-1B", "-g", "l4", "--batch", "8", "--plot", str(path))
    assert result.returncode == 0, result.stderr
    text = path.read_text()
    assert "<svg" in text and "KV cache" in text  # the legend names the segments


def test_unknown_extension_is_one_line(tmp_path):
    result = run("fit", "-m", "meta-llama/Llama-3.2-1B", "-g", "l4", "--plot", str(tmp_path / "x.pdf"))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"inferledger fit: error: --plot {tmp_path / 'x.pdf'}: the file name must end in .png or .svg")
    assert "Traceback" not in result.stderr


def test_notebook_figure():
    from inferledger.report.plots import request_figure

    fig = request_figure("meta-llama/Llama-3.2-1B", "l4", isl=512, osl=64)
    assert len(fig.axes) == 7
    assert fig.axes[0].get_title(loc="left").startswith("Roofline of l4")


@pytest.mark.parametrize("argv", [["--help"], ["request", "--help"], ["report", "--help"], ["serve", "--help"]])
def test_help_does_not_import_matplotlib_or_the_server(argv):
    code = (f"import sys\nfrom inferledger.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'http', 'selenium')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stderr


def test_without_matplotlib_plot_says_how_to_get_it(tmp_path):
    code = ("import sys\nsys.modules['matplotlib'] = None\nfrom inferledger.cli import main\n"
            f"sys.exit(main(['fit', '-m', 'meta-llama/Llama-3.2-1B', '-g', 'l4', '--plot', {str(tmp_path / 'f.png')!r}]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "inferledger fit: error: drawing plots needs matplotlib: pip install 'inferledger[plot]'")
