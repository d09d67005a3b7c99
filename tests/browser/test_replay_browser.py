"""The replay page in a real browser: headless Chromium (Debian's chromium and chromium-driver) through selenium.

For each game a run's row is replayed to a page, loaded from the file with the network
cut off, stepped from the first position to the last by the controls and the keys; the
step counter and the last frame's result are checked and a screenshot must not be blank.
The README's test command leaves them out; ``.ci/run`` installs Chromium and its driver and runs them after it:
``python -m pytest tests/browser -n 0``. Skipped where Chromium, its driver or selenium is missing.
"""

from __future__ import annotations

import io
import shutil
import time

import pytest
from replay_runs import small_run

from experiments.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(CHROMIUM is None or DRIVER is None,
                                reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
                                       "chromium-driver)")
selenium = pytest.importorskip("selenium", reason="needs selenium (pip install -e '.[test]')")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

GAMES = ("knorri", "knockout-whist", "kort")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module, with no network: a page that fetched anything would break."""
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1000,1000", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def counter(driver) -> str:
    return driver.find_element(By.ID, "counter").text


def shown_frame(driver):
    frames = [frame for frame in driver.find_elements(By.CLASS_NAME, "frame") if frame.is_displayed()]
    assert len(frames) == 1
    return frames[0]


@pytest.mark.parametrize("game", GAMES)
def test_a_runs_row_replays_offline_to_its_end(game, browser, tmp_path):
    from PIL import Image

    run = small_run(tmp_path / "run", game, hands=2)
    page = tmp_path / f"{game}.html"
    assert main(["replay", str(run), "--hand-index", "1", "--out", str(page)]) == 0
    browser.get(page.as_uri())
    steps = int(counter(browser).split(" / ")[1])
    assert counter(browser) == f"step 0 / {steps}" and steps > 5
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert counter(browser) == f"step 1 / {steps}"
    body.send_keys(Keys.ARROW_LEFT)
    assert counter(browser) == f"step 0 / {steps}"
    next_button = browser.find_element(By.ID, "next")
    for step in range(1, steps + 1):
        next_button.click()
        assert counter(browser) == f"step {step} / {steps}"
    next_button.click()  # past the last step it stays there
    assert counter(browser) == f"step {steps} / {steps}"
    assert browser.find_element(By.ID, "slider").get_attribute("value") == str(steps)
    last = shown_frame(browser)
    assert last.get_attribute("data-step") == str(steps) and "end (" in last.text
    browser.find_element(By.ID, "first").click()
    assert counter(browser) == f"step 0 / {steps}" and "end (" not in shown_frame(browser).text.split("\n", 1)[1]
    browser.find_element(By.ID, "last").click()
    assert counter(browser) == f"step {steps} / {steps}"
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    colours = shot.getcolors(maxcolors=1 << 16)  # None: more colours than that, so certainly not blank
    if colours is not None:
        background = max(colours)[0]
        assert len(colours) > 20 and background < 0.97 * shot.width * shot.height  # drawn, not one flat colour


def test_play_runs_through_the_steps_and_pause_stops_it(browser, tmp_path):
    page = tmp_path / "fresh.html"
    assert main(["replay", "--seed", "4", "--agents", "greedy", "--out", str(page)]) == 0
    browser.get(page.as_uri())
    play = browser.find_element(By.ID, "play")
    play.click()
    assert play.text == "pause"
    time.sleep(1.5)  # several of the page's steps
    play.click()
    paused = counter(browser)
    time.sleep(0.6)
    assert play.text == "play" and counter(browser) == paused and int(paused.split()[1]) >= 2
