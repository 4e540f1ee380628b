"""The page as a person uses it, in a real headless Chromium driven by Selenium: set values, read the numbers the
page shows, compare them with `request --json`, upload a config and a log, open a report offline, take
screenshots. Needs Debian's `chromium` and `chromium-driver` (.ci/run installs them); without them every test here
is skipped with the reason in pytest's summary (-rs), never silently.

INFERLEDGER_SCREENSHOTS=DIR keeps the screenshots there (docs/ holds the README's).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inferledger.report.units import format_seconds

FIXTURES = Path(__file__).parent.parent / "fixtures"
LLAMA = "meta-llama/Llama-3.1-8B"
WAIT_SECONDS = 30


def _browser_paths():
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = shutil.which("chromedriver") or next((p for p in ("/usr/lib/chromium/chromedriver",)
                                                   if os.path.exists(p)), None)
    return browser, driver


try:
    import selenium  # noqa: F401
except ImportError:
    pytest.skip("browser tests need Selenium: pip install -e '.[test]'", allow_module_level=True)
BROWSER, DRIVER = _browser_paths()
if not (BROWSER and DRIVER):
    pytest.skip(f"browser tests need headless Chromium and its driver (found browser={BROWSER}, driver={DRIVER}): "
                "apt-get install -y chromium chromium-driver", allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def browser(downloads):
    options = webdriver.ChromeOptions()
    options.binary_location = BROWSER
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1440,1500", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(argument)
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    except WebDriverException as error:
        pytest.skip(f"headless Chromium did not start: {error.msg}")
    driver.set_page_load_timeout(WAIT_SECONDS)
    yield driver
    driver.quit()


def screenshot(driver, tmp_path, name) -> Path:
    folder = Path(os.environ.get("INFERLEDGER_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1440, min(max(height, 900), 3000))
    assert driver.save_screenshot(str(path))
    driver.set_window_size(1440, 1500)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path


def cli_json(*args):
    result = subprocess.run([sys.executable, "-m", "inferledger", *map(str, args), "--json"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def wait_for(driver, condition, what):
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: condition(d), message=f"waiting for {what}")


def settled(driver):
    """The page's answer is in: no request in flight, nothing queued."""
    return driver.execute_script("return document.getElementById('status').textContent") in ("",) or \
        "error" in driver.find_element(By.ID, "status").get_attribute("class")


def set_number(driver, element_id, value):
    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(str(value))


def shown_numbers_match(driver, expected):
    """The metrics the page shows are the document's, in the CLI's units (report/units.py)."""
    assert text(driver, "m-ttft") == format_seconds(expected["ttft_seconds"])
    assert text(driver, "m-tpot") == format_seconds(expected["decode"]["seconds_per_token"])
    assert text(driver, "m-total") == format_seconds(expected["total_seconds"])
    assert text(driver, "m-throughput") == f"{expected['tokens_per_second']:.1f}"
    assert text(driver, "m-weights") == f"{expected['memory']['weight_bytes'] / 1e9:.2f} GB"
    assert text(driver, "m-fit") == f"{expected['memory']['max_concurrency']:,}"
    realistic = expected.get("realistic")
    if realistic:  # the realistic estimate under the floor figures
        shown = {key: driver.find_element(By.CSS_SELECTOR, f"#{key} ~ .sub").text for key in ("m-ttft", "m-tpot")}
        assert shown == {"m-ttft": f"realistic {format_seconds(realistic['prefill']['seconds'])}",
                         "m-tpot": f"realistic {format_seconds(realistic['decode']['seconds_per_token'])}"}


def test_set_values_and_read_the_account(browser, server_url, tmp_path):
    browser.get(server_url + "/")
    wait_for(browser, lambda d: text(d, "m-ttft") and settled(d), "the first account")
    assert Select(browser.find_element(By.ID, "model")).first_selected_option.get_attribute("value") == LLAMA
    Select(browser.find_element(By.ID, "gpu")).select_by_value("a100-sxm-80gb")
    Select(browser.find_element(By.ID, "precision")).select_by_value("int8")
    for element_id, value in (("isl", 4096), ("osl", 300), ("batch", 8)):
        set_number(browser, element_id, value)
    wait_for(browser, lambda d: "8 × (4,096 in, 300 out)" in text(d, "summary") and "a100-sxm-80gb" in
             text(d, "summary") and "weights int8" in text(d, "summary") and settled(d), "the new account")
    expected = cli_json("request", "-m", LLAMA, "-g", "a100-sxm-80gb", "--precision", "int8", "--isl", 4096,
                        "--osl", 300, "--batch", 8)
    shown_numbers_match(browser, expected)
    # Seven charts, drawn as inline SVG; the roofline holds a point for every operator that does FLOPs.
    charts = browser.find_elements(By.CSS_SELECTOR, "figure.chart")
    assert [c.get_attribute("data-chart") for c in charts] == [
        "roofline", "memory", "latency_batch", "throughput_batch", "latency_context", "throughput_context", "cards"]
    operators = sum(1 for phase in ("prefill", "decode") for row in expected["operators"][phase] if row["flops"] > 0)
    assert len(charts[0].find_elements(By.CSS_SELECTOR, "svg circle")) == operators
    assert text(browser, "differences").splitlines() == expected["differences"]
    screenshot(browser, tmp_path, "page.png")


def test_legend_click_hides_a_series(browser, server_url):
    browser.get(server_url + "/")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "figure.chart") and settled(d), "the charts")
    roofline = browser.find_element(By.CSS_SELECTOR, 'figure[data-chart="roofline"]')
    entry = roofline.find_elements(By.CSS_SELECTOR, ".legend-item")[1]  # prefill operators
    entry.click()
    hidden = [g for g in roofline.find_elements(By.CSS_SELECTOR, "g.series") if not g.is_displayed()]
    assert len(hidden) == 1 and "off" in entry.get_attribute("class")


def test_bad_value_shows_the_api_message_then_recovers(browser, server_url):
    browser.get(server_url + "/")
    wait_for(browser, lambda d: text(d, "m-ttft") and settled(d), "the first account")
    set_number(browser, "batch", 100000)
    wait_for(browser, lambda d: "batch must be between 1 and 65,536" in text(d, "status"), "the error line")
    set_number(browser, "batch", 2)
    wait_for(browser, lambda d: "2 × (1,024 in, 256 out)" in text(d, "summary") and settled(d), "recovery")
    shown_numbers_match(browser, cli_json("request", "-m", LLAMA, "-g", "h100-sxm", "--batch", 2))


def test_upload_a_config_json(browser, server_url):
    path = FIXTURES / "configs" / "mistralai--Mistral-7B-v0.1.json"
    browser.get(server_url + "/")
    wait_for(browser, lambda d: text(d, "m-ttft") and settled(d), "the first account")
    browser.find_element(By.ID, "config-file").send_keys(str(path))
    wait_for(browser, lambda d: "using mistralai--Mistral-7B-v0.1.json" in text(d, "config-name") and
             text(d, "summary").startswith("uploaded config.json") and settled(d), "the uploaded model's account")
    shown_numbers_match(browser, cli_json("request", "-m", path, "-g", "h100-sxm"))


def test_diagnose_an_uploaded_log(browser, server_url):
    browser.get(server_url + "/")
    wait_for(browser, lambda d: text(d, "m-ttft") and settled(d), "the first account")
    browser.find_element(By.CSS_SELECTOR, "#diagnose-panel summary").click()
    log = FIXTURES / "logs" / "aiperf__profile-export-json-excerpt.txt"
    browser.find_element(By.ID, "log-file").send_keys(str(log))
    wait_for(browser, lambda d: d.find_elements(By.ID, "verdict"), "the verdict")
    expected = cli_json("diagnose", log, "--model", LLAMA, "--gpu", "h100-sxm")
    assert text(browser, "verdict") == f"{expected['verdict']} (confidence {expected['confidence']}): " \
                                       f"{expected['headline']}"


def test_report_opens_offline(browser, tmp_path):
    report = tmp_path / "report.html"
    options = ["-m", LLAMA, "-g", "h100-sxm", "--isl", "8192", "--osl", "512"]
    result = subprocess.run([sys.executable, "-m", "inferledger", "report", *options, "-o", str(report)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    browser.get(report.as_uri())  # a file:// page: no server behind it
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "report",
             "the report to draw")
    shown_numbers_match(browser, cli_json("request", *options))
    assert not browser.find_element(By.ID, "request-form").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.chart svg")) == 8  # 7 charts of the request and the simulator's latency under load
    screenshot(browser, tmp_path, "report.png")


def test_save_the_account_as_a_report(browser, server_url, downloads):
    browser.get(server_url + "/")
    wait_for(browser, lambda d: text(d, "m-ttft") and settled(d), "the first account")
    set_number(browser, "osl", 128)
    wait_for(browser, lambda d: "(1,024 in, 128 out)" in text(d, "summary") and settled(d), "the new account")
    browser.find_element(By.ID, "save-report").click()
    saved = downloads / "inferledger-report.html"
    wait_for(browser, lambda d: saved.exists() and saved.stat().st_size > 0, "the download")
    assert '"osl": 128' in saved.read_text()
