#!/usr/bin/env python3
"""Scenario 22, `page`: the list's page of `sectionctl serve` in a real headless Chromium.

The benchmark's other scenarios are Swift (`sectionctl-bench`); this one drives a browser, which
selenium does from Python, so it is a script of its own that prints the same report rows
(docs/benchmarks.md, "22. `page`"):

    swift build -c release --product sectionctl
    python3 Benchmarks/page_bench.py --sectionctl .build/release/sectionctl --markdown

- First paint: from the navigation's start to the page's first rows drawn (the page's
  `sectionctl-first-rows` performance mark), on a list of 1,000 rows and on one of 1,000,000
  (4 sections), the page opened again and again with its session cookie, sizes alternating round
  by round. Target: 1M <= 1.5 x 1K.
- A move made elsewhere: `sectionctl row move` run as a process while the page shows the 1M-row
  list; from the process's start to the page's rows changing (a MutationObserver in the page,
  on the same clock). Target: median <= 200 ms.
- A drag that lands: in Edit, a row dragged by its handle (WebDriver's pointer actions) into
  another section and saved; the requests the page sent, the intents in them, and the list's
  versions. Target: one intent, one version.

Needs chromium, chromium-driver and selenium, as the browser tests do. Progress goes to stderr,
the table to stdout.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

DEADLINE = 120


def say(text):
    print(text, file=sys.stderr, flush=True)


class Served:
    """A database file of `sections` x `rows` text rows, served by `sectionctl serve`."""

    def __init__(self, sectionctl, directory, name, sections, rows):
        self.sectionctl = sectionctl
        self.rows = sections * rows
        self.db = os.path.join(directory, name + ".db")
        document = os.path.join(directory, name + ".json")
        with open(document, "w") as f:
            f.write('{"format":"sectionctl","version":1,"lists":[{"name":"default","sections":[')
            for s in range(sections):
                f.write(("," if s else "") + '{"title":"Part %d","empty_text":null,"rows":[' % s)
                f.write(",".join('{"kind":"text","title":"Row %d.%d","value":null}' % (s, r) for r in range(rows)))
                f.write("]}")
            f.write("]}]}\n")
        started = time.monotonic()
        self.run("init")
        self.run("import", document)
        os.remove(document)
        self.built = time.monotonic() - started
        self.process = subprocess.Popen(
            [sectionctl, "--db", self.db, "--json", "serve", "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.origin = json.loads(self.process.stdout.readline())["listening"]

    def run(self, *words):
        return subprocess.run([self.sectionctl, "--db", self.db, *words], check=True, capture_output=True, text=True).stdout

    def version(self):
        return json.loads(self.run("--json", "show", "--from", "0:0", "--limit", "1"))["version"]

    def token(self):
        return re.search(r"sct_[0-9a-f]{16}_[A-Za-z0-9_-]+", self.run("token", "create", "--list", "default", "--role", "edit")).group(0)

    def stop(self):
        self.process.terminate()
        self.process.wait()
        self.process.stdout.close()


class Page:
    """A headless Chromium with the page of `served` open, its session cookie set."""

    def __init__(self, served):
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("SECTIONCTL_CHROMIUM", "/usr/bin/chromium")
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,1000", "--disable-gpu"]:
            options.add_argument(argument)
        service = Service(executable_path=os.environ.get("SECTIONCTL_CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(options=options, service=service)
        self.served = served
        self.size = f"{served.rows // 1000:,}K" if served.rows < 1_000_000 else f"{served.rows // 1_000_000}M"
        self.url = served.origin + "/lists/default"
        self.driver.get(self.url)
        token = self.wait(lambda d: d.find_element(By.ID, "token"))
        self.wait(lambda d: token.is_displayed())
        token.send_keys(served.token())
        token.send_keys(Keys.ENTER)
        self.wait_ready()

    def wait(self, condition):
        return WebDriverWait(self.driver, DEADLINE, poll_frequency=0.005).until(condition)

    def wait_ready(self):
        self.wait(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))

    def first_paint(self):
        """Opens the page again (the cookie opens its session) and returns ms to its first rows."""
        self.driver.get(self.url)
        self.wait_ready()
        return self.driver.execute_script("return performance.getEntriesByName('sectionctl-first-rows')[0].startTime;")

    def quit(self):
        self.driver.quit()


def median_ms(values):
    return statistics.median(values)


def shown(ms):
    return f"{ms:.0f} ms" if ms >= 100 else f"{ms:.1f} ms"


def row(scenario, measured, ratio, target, result):
    return (scenario, measured, ratio, target, result)


def first_paint(small, large, rounds):
    say(f"page: first paint, {small.size} vs {large.size} rows")
    times = {"small": [], "large": []}
    for page in (small, large):
        page.first_paint()  # warm-up
    for _ in range(rounds):
        times["small"].append(small.first_paint())
        times["large"].append(large.first_paint())
    a, b = median_ms(times["small"]), median_ms(times["large"])
    ratio = b / a
    return row(f"22. page first paint, {large.size} vs {small.size} rows",
               f"{small.size}: {shown(a)}, {large.size}: {shown(b)} from navigation to the first rows drawn (medians of {rounds} openings)",
               f"{ratio:.2f}", "≤ 1.50", "PASS" if ratio <= 1.5 else "FAIL")


def move_elsewhere(page, rounds):
    say(f"page: a move made elsewhere, on the {page.size}-row list")
    from_start, from_exit = [], []
    page.driver.get(page.url)
    page.wait_ready()
    for n in range(rounds + 1):
        first = page.driver.execute_script("return document.querySelector('.row[data-id] .title').textContent;")
        page.driver.execute_script("""
            window.__seen = null;
            const first = arguments[0];
            const observer = new MutationObserver(() => {
              const now = performance.timeOrigin + performance.now();
              const row = document.querySelector('.row[data-id] .title');
              if (row && row.textContent !== first && window.__seen === null) { window.__seen = now; observer.disconnect(); }
            });
            observer.observe(document.getElementById('table'), { childList: true, subtree: true, characterData: true });""", first)
        started = time.time() * 1000
        page.served.run("row", "move", "0:0", "0:5")
        ended = time.time() * 1000
        seen = page.wait(lambda d: d.execute_script("return window.__seen;"))
        if n > 0:  # the first is a warm-up
            from_start.append(seen - started)
            from_exit.append(seen - ended)
        time.sleep(0.3)
    a, b = median_ms(from_start), median_ms(from_exit)
    return row("22. page: a move made elsewhere shows (median)",
               f"{shown(a)} from the `row move` process's start ({shown(b)} after it exited), worst {shown(max(from_start))}; "
               f"{rounds} moves, {page.size}-row list",
               shown(a), "≤ 200 ms", "PASS" if a <= 200 else "FAIL")


def drag_lands(page):
    say("page: a drag that lands")
    driver = page.driver
    driver.get(page.url)
    page.wait_ready()
    driver.execute_script("""
        window.__posts = [];
        const original = window.fetch;
        window.fetch = (url, options) => {
          if (options && options.method === 'POST') window.__posts.push(String(options.body));
          return original(url, options);
        };""")
    before = page.served.version()
    driver.find_element(By.ID, "edit").click()
    handle = driver.find_element(By.XPATH, "//li[span[@class='title' and text()='Row 0.1']]/span[@class='handle']")
    target = driver.find_element(By.XPATH, "//li[span[@class='title' and text()='Row 0.6']]")
    actions = ActionChains(driver, duration=50)
    actions.click_and_hold(handle).move_by_offset(0, 5).move_by_offset(0, 5)
    actions.move_to_element(target).move_by_offset(0, 8).move_to_element(target).move_by_offset(0, 10).release().perform()
    page.wait(lambda d: d.execute_script(
        "return [...document.querySelectorAll('.row[data-id] .title')].slice(0, 8).map((t) => t.textContent).indexOf('Row 0.1') !== 1;"))
    driver.find_element(By.ID, "save").click()
    page.wait(lambda d: not d.find_element(By.ID, "save").is_displayed())
    posts = driver.execute_script("return window.__posts;")
    intents = sum(len(json.loads(body)["intents"]) for body in posts)
    versions = page.served.version() - before
    ok = len(posts) == 1 and intents == 1 and versions == 1
    return row("22. page: a drag that lands, saved",
               f"{len(posts)} request, {intents} intent, {versions} version (a row dragged 5 places down, {page.size}-row list)",
               f"{intents} intent, {versions} version", "1 intent, 1 version", "PASS" if ok else "FAIL")


def scrolling(page):
    say(f"page: scrolling the {page.size}-row list")
    driver = page.driver
    driver.get(page.url)
    page.wait_ready()
    most = 0
    for fraction in [i / 20 for i in range(21)]:
        driver.execute_script("window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) * arguments[0]);", fraction)
        page.wait(lambda d: d.execute_script("return document.querySelectorAll('.row.placeholder').length === 0;"))
        most = max(most, driver.execute_script("return document.querySelectorAll('.row').length;"))
    reads = driver.execute_script("return performance.getEntriesByType('resource').filter((e) => e.name.includes('/window')).length;")
    return row(f"22. page: scrolling {page.size} rows, 21 screens from top to end",
               f"at most {most} rows in the page; {reads} window reads of 250 rows (one at open)",
               f"{most} rows", "bounded", "info")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sectionctl", default="Benchmarks/.build/release/sectionctl")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="100,000 rows instead of 1,000,000, 5 rounds")
    parser.add_argument("--markdown", action="store_true")
    options = parser.parse_args()
    rounds = 5 if options.quick else options.rounds
    large_rows = 25_000 if options.quick else 250_000
    with tempfile.TemporaryDirectory(prefix="sectionctl-page-bench-") as directory:
        say("page: building the lists")
        small = Served(options.sectionctl, directory, "small", 1, 1_000)
        large = Served(options.sectionctl, directory, "large", 4, large_rows)
        say(f"page: {4 * large_rows:,} rows imported in {large.built:.1f} s")
        pages = []
        try:
            pages = [Page(small), Page(large)]
            rows = [first_paint(pages[0], pages[1], rounds), drag_lands(pages[1]), move_elsewhere(pages[1], rounds), scrolling(pages[1])]
        finally:
            for page in pages:
                page.quit()
            small.stop()
            large.stop()
    load = os.getloadavg()[0]
    print(f"sectionctl-bench page: {'quick' if options.quick else 'full'} run; Chromium headless; {os.cpu_count()} cores; load average {load:.2f} after")
    if options.markdown:
        print("\n| Scenario | Measured | Ratio | Target | Result |\n|---|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        for r in rows:
            print("  ".join(r))


if __name__ == "__main__":
    main()
