#!/usr/bin/env python3
"""The list page of `sectionctl serve` in a real headless Chromium, driven by WebDriver.

Each test starts `sectionctl serve` on a fresh database file in a temporary directory, opens the
page, types a token into its form once, and checks what a person sees and what the database holds
afterwards (through `sectionctl show`, a process of its own). Screenshots of the main steps go to
$SECTIONCTL_BROWSER_ARTIFACTS (default .build/browser-artifacts).

    SECTIONCTL=.build/debug/sectionctl python3 Tests/Browser/test_page.py

Needs chromium, chromium-driver (Debian) and selenium (pip install selenium). The Swift test
BrowserTests runs this file, so `swift test` runs it where they are installed.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

SECTIONCTL = os.environ.get("SECTIONCTL", ".build/debug/sectionctl")
ARTIFACTS = os.environ.get("SECTIONCTL_BROWSER_ARTIFACTS", ".build/browser-artifacts")
# Only a guard against a hang: every wait ends as soon as what it waits for is there.
DEADLINE = 120


class Served:
    """A database file with a list, served by `sectionctl serve` on a free loopback port."""

    def __init__(self):
        self.directory = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.directory.name, "page.db")
        self.run("init")
        self.process = None

    def run(self, *words, check=True):
        result = subprocess.run([SECTIONCTL, "--db", self.db, *words], capture_output=True, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f"sectionctl {' '.join(words)}: {result.stderr}")
        return result.stdout

    def token(self, role="edit"):
        return re.search(r"sct_[0-9a-f]{16}_[A-Za-z0-9_-]+", self.run("token", "create", "--list", "default", "--role", role)).group(0)

    def start(self):
        self.process = subprocess.Popen(
            [SECTIONCTL, "--db", self.db, "--json", "serve", "--listen", "127.0.0.1:0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()
        self.origin = json.loads(line)["listening"]
        return self

    def shown(self):
        """The list as `sectionctl --json show` has it: [(section title, [(kind, title, value)])]."""
        listing = json.loads(self.run("--json", "show"))
        return [(s["title"], [(r["kind"], r["title"], r["value"]) for r in s["rows"]]) for s in listing["sections"]]

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait()
            self.process.stdout.close()
        self.directory.cleanup()


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("SECTIONCTL_CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=900,1000", "--disable-gpu"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("SECTIONCTL_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(options=options, service=service)


class PageTest(unittest.TestCase):
    """A served list, a browser, and the checks every test ends with."""

    def setUp(self):
        self.served = Served()
        self.driver = None
        self.step = 0

    def tearDown(self):
        if self.driver:
            self.driver.quit()
        self.served.stop()

    def build(self, sections):
        """Makes the list: [(section title, [(kind, title, value)])]."""
        for title, rows in sections:
            self.served.run("section", "add", title)
            for kind, row, value in rows:
                words = ["row", "add", title, row, "--kind", kind]
                if value is not None:
                    words += ["--value", value]
                self.served.run(*words)

    def open(self, role="edit"):
        """Serves the list, opens its page and gives the form a token of `role`."""
        self.served.start()
        self.driver = browser()
        self.driver.get(self.served.origin + "/lists/default")
        token = self.wait(lambda d: d.find_element(By.ID, "token"))
        self.wait(lambda d: token.is_displayed())
        self.shot("form")
        self.token = self.served.token(role)
        token.send_keys(self.token)
        token.send_keys(Keys.ENTER)
        self.wait_ready()
        self.shot("opened")

    def wait_ready(self):
        self.wait(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")

    def wait(self, condition, message=""):
        return WebDriverWait(self.driver, DEADLINE, poll_frequency=0.05).until(condition, message)

    def shot(self, name):
        os.makedirs(ARTIFACTS, exist_ok=True)
        self.step += 1
        self.driver.save_screenshot(os.path.join(ARTIFACTS, f"{self._testMethodName}-{self.step:02d}-{name}.png"))

    def page(self):
        """The table as the page shows it: [(section title, [(kind, title, value)])], footers apart."""
        return self.driver.execute_script("""
            return [...document.querySelectorAll('.section')].map((s) => [
              s.querySelector('.section-header').textContent,
              [...s.querySelectorAll('.row')].map((r) => [
                ['text', 'topic', 'field'].find((k) => r.classList.contains(k)),
                r.querySelector('.title').textContent,
                r.querySelector('.value') ? r.querySelector('.value').textContent : null])]);""")

    def footers(self):
        """For each section, whether its "No Data" footer shows."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('.section .footer')].map((f) => f.getClientRects().length > 0);")

    def expected(self):
        """What `sectionctl show` has, as the page shows it: `-` for a field with no value."""
        return [[t, [[k, r, (v if v is not None else "-") if k == "field" else None] for k, r, v in rows]] for t, rows in self.served.shown()]

    def console_errors(self):
        return [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"]

    def drag(self, row_title, into_section):
        """Drags the row titled `row_title` by its handle into the section at index `into_section`, as a mouse does."""
        handle = self.driver.find_element(By.XPATH, f"//li[span[@class='title' and text()='{row_title}']]/span[@class='handle']")
        target = self.driver.find_elements(By.CSS_SELECTOR, ".rows")[into_section]
        actions = ActionChains(self.driver, duration=50)
        actions.click_and_hold(handle).move_by_offset(0, 5).move_by_offset(0, 5)
        actions.move_to_element(target).move_by_offset(0, 2).move_to_element(target).release().perform()


class PageTests(PageTest):
    PICTURE = [
        ("Groceries", [("text", "Oat milk", None), ("text", "Bread", None)]),
        ("Contact", [("topic", "Details", None), ("field", "Name", "Aiko Tanaka"), ("field", "Phone", None)]),
        ("Later", [("text", "Stamps", None)]),
        ("Done", []),
    ]

    def test_the_page_shows_the_list_as_show_has_it(self):
        self.build(self.PICTURE)
        self.open()
        self.assertEqual(self.page(), self.expected())
        self.assertIn("Phone", [r[1] for r in self.page()[1][1]])
        self.assertEqual(self.page()[1][1][2], ["field", "Phone", "-"])
        self.assertEqual(self.footers(), [False, False, False, False], "no footer outside editing")
        self.driver.find_element(By.ID, "edit").click()
        self.assertEqual(self.footers(), [False, False, False, True], "the empty section's footer while editing")
        self.shot("editing")
        self.assertEqual(self.console_errors(), [])

    def test_a_row_dragged_into_an_empty_section_moves_the_footers_and_saves_as_one_change(self):
        self.build(self.PICTURE)
        self.open()
        version = json.loads(self.served.run("--json", "show"))["version"]
        self.driver.find_element(By.ID, "edit").click()
        self.assertEqual(self.footers(), [False, False, False, True])
        self.drag("Stamps", 3)
        self.wait(lambda d: self.footers() == [False, False, True, False], "the footers follow the row as it lands")
        self.shot("landed")
        self.drag("Bread", 3)
        self.wait(lambda d: [r[1] for r in self.page()[3][1]] in (["Stamps", "Bread"], ["Bread", "Stamps"]))
        order = [r[1] for r in self.page()[3][1]]
        self.driver.find_element(By.ID, "save").click()
        self.wait(lambda d: not d.find_element(By.ID, "save").is_displayed())
        self.wait(lambda d: [r[1] for r in self.served.shown()[3][1]] == order, "sectionctl show sees the saved order")
        self.assertEqual(json.loads(self.served.run("--json", "show"))["version"], version + 1, "one save, one version")
        self.wait(lambda d: self.page() == self.expected())
        self.driver.refresh()
        self.wait_ready()
        self.assertEqual(self.page(), self.expected(), "a reload shows the saved order")
        self.shot("saved")
        self.assertEqual(self.console_errors(), [])

    def test_cancel_restores_the_order_from_before(self):
        self.build(self.PICTURE)
        self.open()
        before = self.page()
        self.driver.find_element(By.ID, "edit").click()
        self.drag("Oat milk", 3)
        self.wait(lambda d: self.page() != before)
        self.shot("dragged")
        self.driver.find_element(By.ID, "cancel").click()
        self.assertEqual(self.page(), before)
        self.assertEqual(self.page(), self.expected(), "nothing was written")
        self.shot("cancelled")

    def test_another_process_move_appears_without_a_reload(self):
        self.build(self.PICTURE)
        self.open()
        marker = self.driver.execute_script("window.__samePage = 1; return 1;")
        self.served.run("row", "move", "0:0", "3:0")
        self.wait(lambda d: [r[1] for r in self.page()[3][1]] == ["Oat milk"], "the move shows without a reload")
        self.assertEqual(self.driver.execute_script("return window.__samePage;"), marker, "the page was not reloaded")
        self.assertEqual(self.page(), self.expected())
        self.shot("moved-elsewhere")

    def test_a_save_over_someone_elses_says_so_and_offers_both_ways(self):
        self.build(self.PICTURE)
        self.open()
        self.driver.find_element(By.ID, "edit").click()
        self.drag("Stamps", 3)
        self.wait(lambda d: self.footers() == [False, False, True, False])
        self.served.run("row", "move", "0:0", "0:1")  # someone else saves meanwhile
        self.driver.find_element(By.ID, "save").click()
        self.wait(lambda d: d.find_element(By.ID, "conflict").is_displayed(), "the page says someone else saved")
        self.shot("conflict")
        self.assertEqual([r[1] for r in self.served.shown()[3][1]], [], "nothing of the edit was written")
        self.driver.find_element(By.ID, "rebase").click()
        self.wait(lambda d: [r[1] for r in self.served.shown()[3][1]] == ["Stamps"], "the move applied on theirs")
        self.assertEqual([r[1] for r in self.served.shown()[0][1]], ["Bread", "Oat milk"], "their move kept")
        self.wait(lambda d: self.page() == self.expected())
        self.shot("rebased")

    def test_delete_and_undo(self):
        self.build(self.PICTURE)
        self.open()
        self.click("//li[span[@class='title' and text()='Bread']]/button[@class='delete']")
        self.wait(lambda d: "Bread" not in [r[1] for r in self.page()[0][1]])
        self.assertNotIn("Bread", [r[1] for r in self.served.shown()[0][1]])
        self.wait(lambda d: d.find_element(By.ID, "undo-bar").is_displayed())
        self.shot("deleted")
        self.driver.find_element(By.ID, "undo").click()
        self.wait(lambda d: [r[1] for r in self.page()[0][1]] == ["Oat milk", "Bread"], "undo puts the row back where it was")
        self.assertEqual(self.page(), self.expected())
        self.shot("undone")

    def test_keyboard_reordering(self):
        self.build(self.PICTURE)
        self.open()
        self.driver.find_element(By.ID, "edit").click()
        row = self.driver.find_element(By.XPATH, "//li[span[@class='title' and text()='Oat milk']]")
        row.send_keys(Keys.SPACE)
        self.wait(lambda d: "Picked up Oat milk" in d.find_element(By.ID, "live").text)
        active = lambda: self.driver.switch_to.active_element
        active().send_keys(Keys.ARROW_DOWN)
        self.wait(lambda d: [r[1] for r in self.page()[0][1]] == ["Bread", "Oat milk"])
        self.wait(lambda d: "row 2 of 2 in Groceries" in d.find_element(By.ID, "live").text)
        active().send_keys(Keys.ARROW_DOWN)  # past the section's end: into the next one
        self.wait(lambda d: [r[1] for r in self.page()[1][1]][0] == "Oat milk")
        active().send_keys(Keys.SPACE)
        self.wait(lambda d: "Dropped Oat milk" in d.find_element(By.ID, "live").text)
        self.shot("dropped")
        self.driver.find_element(By.ID, "save").click()
        self.wait(lambda d: [r[1] for r in self.served.shown()[1][1]][0] == "Oat milk")
        self.assertEqual(self.page(), self.expected())

    def test_a_read_token_sees_the_list_and_no_edit_control(self):
        self.build(self.PICTURE)
        self.open(role="read")
        self.assertEqual(self.page(), self.expected())
        self.assertFalse(self.driver.find_element(By.ID, "edit").is_displayed())
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, ".delete"), [])
        self.assertEqual(self.console_errors(), [])

    def click(self, xpath):
        """Clicks what `xpath` finds, finding it again when the page drew its rows anew meanwhile
        (a change arriving from the event stream)."""
        def clicked(driver):
            try:
                driver.find_element(By.XPATH, xpath).click()
                return True
            except StaleElementReferenceException:
                return False
        self.wait(clicked)

    def edit_in_form(self, button_label, title=None, value=None, kind=None):
        """Presses the button labelled `button_label`, fills the form it opens and submits it."""
        self.click(f"//button[@aria-label='{button_label}' or (not(@aria-label) and text()='{button_label}')]")
        self.wait(lambda d: d.find_element(By.ID, "editor").is_displayed())
        if kind is not None:
            self.driver.find_element(By.CSS_SELECTOR, f"#editor-kind option[value='{kind}']").click()
        if title is not None:
            field = self.driver.find_element(By.ID, "editor-title")
            field.clear()
            field.send_keys(title)
        if value is not None:
            field = self.driver.find_element(By.ID, "editor-value")
            field.clear()
            field.send_keys(value)
        self.driver.find_element(By.ID, "editor-ok").click()
        self.wait(lambda d: not d.find_element(By.ID, "editor").is_displayed(), "the form closes once the change is written")

    def test_sections_and_rows_are_added_renamed_and_deleted(self):
        self.build(self.PICTURE)
        self.open()
        self.edit_in_form("Add section", title="Errands")
        self.wait(lambda d: [t for t, _ in self.served.shown()][-1] == "Errands", "sectionctl show has the new section, last")
        self.wait(lambda d: self.page() == self.expected())
        self.edit_in_form("Add row to section Errands", title="Post a letter")
        self.edit_in_form("Add row to section Errands", kind="field", title="Due", value="Friday")
        self.wait(lambda d: self.served.shown()[4][1] == [("text", "Post a letter", None), ("field", "Due", "Friday")])
        self.wait(lambda d: self.page() == self.expected())
        self.shot("added")
        self.edit_in_form("Rename Post a letter", title="Post two letters")
        self.edit_in_form("Rename Due", value="")
        self.edit_in_form("Rename section Errands", title="Chores")
        self.wait(lambda d: self.served.shown()[4] == ("Chores", [("text", "Post two letters", None), ("field", "Due", None)]))
        self.wait(lambda d: self.page() == self.expected())
        self.assertEqual(self.page()[4][1][1], ["field", "Due", "-"], "a field without its value shows -")
        self.shot("renamed")
        # An empty section goes at once; one with rows asks first, and its rows go with it.
        self.click("//button[@aria-label='Delete section Done']")
        self.wait(lambda d: "Done" not in [t for t, _ in self.served.shown()])
        self.click("//button[@aria-label='Delete section Chores']")
        self.wait(lambda d: "and its 2 rows?" in d.find_element(By.ID, "editor-heading").text)
        self.assertIn("Chores", [t for t, _ in self.served.shown()], "nothing is deleted before it is asked twice")
        self.driver.find_element(By.ID, "editor-ok").click()
        self.wait(lambda d: [t for t, _ in self.served.shown()] == ["Groceries", "Contact", "Later"])
        self.click("//li[span[@class='title' and text()='Stamps']]/button[@class='delete']")
        self.wait(lambda d: self.served.shown()[2] == ("Later", []))
        self.wait(lambda d: self.page() == self.expected())
        self.shot("deleted")
        self.assertEqual(self.console_errors(), [])

    def test_a_refused_change_says_why_and_writes_nothing(self):
        self.build(self.PICTURE)
        self.open()
        before = self.served.shown()
        self.served.run("token", "revoke", self.token.split("_")[1])  # the token is revoked meanwhile
        self.click("//button[@aria-label='Rename section Groceries']")
        self.driver.find_element(By.ID, "editor-title").clear()
        self.driver.find_element(By.ID, "editor-title").send_keys("Shopping")
        self.driver.find_element(By.ID, "editor-ok").click()
        self.wait(lambda d: "valid token" in d.find_element(By.ID, "editor-error").text, "the form says why")
        self.shot("refused")
        self.assertEqual(self.served.shown(), before, "nothing was written")
        self.driver.find_element(By.ID, "editor-cancel").click()
        self.assertFalse(self.driver.find_element(By.ID, "editor").is_displayed())
        # The session ended with its token: the page asks for a token again.
        self.driver.refresh()
        self.wait(lambda d: d.find_element(By.ID, "token").is_displayed())
        self.shot("asked-again")

    def centre(self, xpath, dx=0):
        """The point (CSS pixels in the window) at the middle of the element `xpath` finds, moved `dx` across."""
        box = self.driver.execute_script(
            "const b = document.evaluate(arguments[0], document, null, 9, null).singleNodeValue.getBoundingClientRect();"
            "return [b.left + b.width / 2, b.top + b.height / 2];", xpath)
        return box[0] + dx, box[1]

    def touch_drag(self, start, end, steps=12):
        """A finger put down at `start`, moved to `end` in `steps`, and lifted: Chromium's touch
        input (CDP Input.dispatchTouchEvent), with touch emulated, so the page gets pointer
        events of type touch."""
        self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
        send = lambda kind, points: self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
        send("touchStart", [{"x": start[0], "y": start[1]}])
        for i in range(1, steps + 1):
            x = start[0] + (end[0] - start[0]) * i / steps
            y = start[1] + (end[1] - start[1]) * i / steps
            send("touchMove", [{"x": x, "y": y}])
            time.sleep(0.02)
        send("touchEnd", [])

    def test_a_swipe_left_on_touch_deletes_a_row_and_undo_brings_it_back(self):
        self.build(self.PICTURE)
        self.open()
        row = "//li[span[@class='title' and text()='Bread']]"
        start = self.centre(row + "/span[@class='title']", dx=-150)
        self.touch_drag(start, (start[0] - 40, start[1]), steps=4)  # too short: the row springs back
        self.wait(lambda d: d.execute_script(
            "return document.evaluate(arguments[0], document, null, 9, null).singleNodeValue.style.transform === '';", row))
        self.assertIn("Bread", [r[1] for r in self.served.shown()[0][1]])
        self.touch_drag(start, (start[0] - 400, start[1]))
        self.wait(lambda d: "Bread" not in [r[1] for r in self.served.shown()[0][1]], "a long swipe deletes the row")
        self.wait(lambda d: d.find_element(By.ID, "undo-bar").is_displayed())
        self.wait(lambda d: self.page() == self.expected())
        self.shot("swiped")
        self.driver.find_element(By.ID, "undo").click()
        self.wait(lambda d: [r[1] for r in self.served.shown()[0][1]] == ["Oat milk", "Bread"], "undo puts it back where it was")
        self.wait(lambda d: self.page() == self.expected())
        # Swiping up and down scrolls; it deletes nothing.
        start = self.centre("//li[span[@class='title' and text()='Stamps']]/span[@class='title']")
        self.touch_drag(start, (start[0] - 5, start[1] - 200))
        self.assertIn("Stamps", [r[1] for r in self.served.shown()[2][1]])
        self.assertEqual(self.console_errors(), [])

    def test_a_row_dragged_by_touch_lands_in_an_empty_section(self):
        self.build(self.PICTURE)
        self.open()
        self.driver.find_element(By.ID, "edit").click()
        handle = self.centre("//li[span[@class='title' and text()='Stamps']]/span[@class='handle']")
        target = self.centre("(//ul[contains(@class, 'rows')])[4]")
        self.touch_drag(handle, target, steps=20)
        self.wait(lambda d: self.footers() == [False, False, True, False], "the footers follow the row as it lands")
        self.shot("landed-by-touch")
        self.driver.find_element(By.ID, "save").click()
        self.wait(lambda d: [r[1] for r in self.served.shown()[3][1]] == ["Stamps"])
        self.wait(lambda d: self.page() == self.expected())
        self.assertEqual(self.console_errors(), [])

    HOSTILE = [
        # markup and script
        "<img src=x onerror=\"window.__pwned=1\">",
        "<script>window.__pwned=2</script>",
        "\"><svg onload=window.__pwned=4>",
        "</style><style>*{display:none}</style>",
        "<a href=\"javascript:window.__pwned=5\">click</a>",
        "&lt;b&gt;entities&lt;/b&gt; &amp;amp;",
        "{{constructor.constructor('window.__pwned=6')()}}",
        # javascript: URLs, however spelt
        "javascript:window.__pwned=3",
        "JaVaScRiPt:window.__pwned=7",
        " javascript\t:window.__pwned=8",
        "data:text/html,<script>window.__pwned=9</script>",
        # bidi overrides, isolates and marks
        "\u202eevil\u202c right-to-left",
        "\u2066isolated\u2069 \u2067rtl\u2069 \u2068first\u2069",
        "mark\u200eleft\u200fright\u061carabic",
        "txt.exe\u202egpj.",
        # invisible characters
        "zero\u200bwidth\u2060joined",
        "\ufeffbom and soft\u00adhyphen",
        "hangul\u3164filler\u115fchoseong",
        "lonely\u200djoiner and \U000e0041tag",
        "word\u2062invisible\u2063times",
        # controls, NUL apart
        "bell\x07 and \x1b[31mred",
        "".join(chr(c) for c in range(1, 32)) + "\x7f",
        "c1\x85next\x9bcsi",
        "line\u2028separator\u2029paragraph",
        # combining marks, emoji sequences, long titles
        "Z\u0351\u0352\u0353a\u0300\u0301\u0302\u0303\u0304\u0305\u0306l\u0489g\u0334o",
        "e\u0301 n\u0303 \u1100\u1161\u11a8",
        "👩\u200d💻 ❤\ufe0f 🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f 👍🏽",
        "long " * 2000,
        "\u202e" * 300 + "x",
    ]

    def test_hostile_titles_render_as_text(self):
        self.build([("<b>bold</b>\u202e", [("text", t, None) for t in self.HOSTILE]),
                    ("fields", [("field", "<i>label</i>", "\u202evalue<script>window.__pwned=10</script>")])])
        self.open()
        shown = self.served.run("show")
        lines = [l for l in shown.splitlines() if re.match(r"^  0:\d+ ", l)]
        width = len(f"0:{len(lines) - 1}")  # show pads the paths to the widest
        expected = [re.sub(r"  #\d+$", "", l[2 + width + 2:]) for l in lines]
        self.assertEqual(len(expected), len(self.HOSTILE))
        self.assertEqual([r[1] for r in self.page()[0][1]], expected, "titles escaped as sectionctl show escapes them")
        self.assertEqual(self.page()[0][0], "<b>bold</b>\\u{202E}")
        self.assertIn("\\u{202E}", self.page()[0][1][11][1])
        self.assertEqual(self.page()[1][1], [["field", "<i>label</i>", "\\u{202E}value<script>window.__pwned=10</script>"]])
        # Every row keeps its height: a long title ends in an ellipsis rather than growing its row.
        heights = self.driver.execute_script("return [...document.querySelectorAll('.row')].map((r) => r.getBoundingClientRect().height);")
        self.assertEqual(set(heights), {44})
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, "#table img, #table script, #table b, #table svg, #table a, #table style, #table i"), [])
        self.assertIsNone(self.driver.execute_script("return window.__pwned;"))
        with self.assertRaises(NoAlertPresentException):
            self.driver.switch_to.alert.text
        self.assertEqual(self.console_errors(), [])
        self.shot("hostile")
        # Edit mode, the form and the announcements show the same text, as text.
        self.driver.find_element(By.ID, "edit").click()
        self.assertEqual([r[1] for r in self.page()[0][1]], expected)
        self.driver.find_element(By.ID, "cancel").click()
        self.click("(//li[contains(@class, 'row')]/button[@class='rename'])[1]")
        self.assertEqual(self.driver.find_element(By.ID, "editor-heading").text, "Rename " + expected[0])
        self.assertIsNone(self.driver.execute_script("return window.__pwned;"))
        self.assertEqual(self.console_errors(), [])


class BigList:
    """One database of a million rows (4 sections of 250,000, "Row S.R"), built once per run by
    `sectionctl import` of a generated file: the largest list the page is tested on."""

    SECTIONS = 4
    ROWS = 250_000
    directory = None

    @classmethod
    def path(cls):
        if cls.directory is None:
            cls.directory = tempfile.TemporaryDirectory()
            document = os.path.join(cls.directory.name, "big.json")
            with open(document, "w") as f:
                f.write('{"format":"sectionctl","version":1,"lists":[{"name":"default","sections":[')
                for s in range(cls.SECTIONS):
                    f.write(("," if s else "") + '{"title":"Part %d","empty_text":null,"rows":[' % s)
                    f.write(",".join('{"kind":"text","title":"Row %d.%d","value":null}' % (s, r) for r in range(cls.ROWS)))
                    f.write("]}")
                f.write("]}]}\n")
            db = os.path.join(cls.directory.name, "big.db")
            started = time.monotonic()
            for words in (["init"], ["import", document]):
                subprocess.run([SECTIONCTL, "--db", db, *words], check=True, capture_output=True)
            print(f"(a list of {cls.SECTIONS * cls.ROWS:,} rows built in {time.monotonic() - started:.1f} s)", file=sys.stderr)
        return os.path.join(cls.directory.name, "big.db")


class BigListTests(PageTest):
    """A list of a million rows: only the rows near the screen are in the page, and scrolling
    reads only the windows it shows."""

    BOUND = 150  # rows in the page at most: a screen of rows and the few kept beyond its edges

    def setUp(self):
        super().setUp()
        # A copy of the one built for the run: the tests may write to it.
        subprocess.run(["cp", BigList.path(), self.served.db], check=True)

    def rows(self):
        """The rows in the page: [(section index, row index, title)], placeholders apart."""
        return [tuple(r) for r in self.driver.execute_script("""
            return [...document.querySelectorAll('.row[data-id]')].map((r) => [
              Number(r.parentElement.dataset.section), Number(r.getAttribute('aria-posinset')) - 1,
              r.querySelector('.title').textContent]);""")]

    def on_screen(self):
        """The rows the screen shows, top to bottom, once none of them is still being read."""
        self.wait(lambda d: d.execute_script("""
            const seen = [...document.querySelectorAll('.row')].filter((r) => {
              const box = r.getBoundingClientRect(); return box.bottom > 0 && box.top < innerHeight; });
            return seen.length > 0 && seen.every((r) => r.dataset.id);"""), "the rows on screen are read")
        return [tuple(r) for r in self.driver.execute_script("""
            return [...document.querySelectorAll('.row[data-id]')].filter((r) => {
              const box = r.getBoundingClientRect(); return box.top >= 40 && box.bottom <= innerHeight; }).map((r) => [
              Number(r.parentElement.dataset.section), Number(r.getAttribute('aria-posinset')) - 1,
              r.querySelector('.title').textContent]);""")]

    def shown_from(self, section, row, limit):
        """`sectionctl show --from S:R --limit N`, as [(section index, row index, title)]."""
        window = json.loads(self.served.run("--json", "show", "--from", f"{section}:{row}", "--limit", str(limit)))
        return [(s["index"], r["index"], r["title"]) for s in window["sections"] for r in s["rows"]]

    def row_count(self):
        return self.driver.execute_script("return document.querySelectorAll('.row').length;")

    def window_reads(self):
        return self.driver.execute_script(
            "return performance.getEntriesByType('resource').filter((e) => e.name.includes('/window')).length;")

    def expect_screen_as_show_has_it(self, name):
        seen = self.on_screen()
        self.assertGreater(len(seen), 5, "a screen of rows")
        section, row, _ = seen[0]
        self.assertEqual(seen, self.shown_from(section, row, len(seen)), "the rows on screen are the list's, in order")
        self.assertLessEqual(self.row_count(), self.BOUND, "only the rows near the screen are in the page")
        self.shot(name)
        return seen

    def scroll_to(self, fraction):
        self.driver.execute_script(
            "window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) * arguments[0]);", fraction)

    def test_a_million_rows_open_and_scroll_with_a_bounded_page(self):
        self.open()
        top = self.expect_screen_as_show_has_it("top")
        self.assertEqual(top[0][:3], (0, 0, "Row 0.0"))
        self.scroll_to(0.5)
        middle = self.expect_screen_as_show_has_it("middle")
        self.assertIn(middle[0][0], (1, 2), "the middle of the list is its middle sections")
        self.scroll_to(1)
        end = self.expect_screen_as_show_has_it("end")
        self.assertEqual(end[-1], (3, BigList.ROWS - 1, f"Row 3.{BigList.ROWS - 1}"), "the end shows the last row")
        # A little further by the wheel: the next rows, read without a gap.
        self.scroll_to(0.25)
        self.expect_screen_as_show_has_it("quarter")
        self.driver.execute_script("window.scrollBy(0, 600);")
        self.expect_screen_as_show_has_it("quarter-and-a-bit")
        self.assertLessEqual(self.window_reads(), 16, "scrolling reads only the windows it shows")
        self.assertEqual(self.console_errors(), [])

    def test_a_move_elsewhere_shows_in_the_middle_of_a_million_rows(self):
        self.open()
        self.scroll_to(0.5)
        seen = self.on_screen()
        section, row, title = seen[2]
        self.served.run("row", "move", f"{section}:{row}", f"{section}:{row + 3}")
        self.wait(lambda d: [r[2] for r in self.on_screen()][2:6] == [seen[3][2], seen[4][2], seen[5][2], title],
                  "the move shows without a reload")
        self.expect_screen_as_show_has_it("moved-elsewhere")

    def test_a_row_dragged_in_the_middle_of_a_million_rows_saves_one_move(self):
        self.open()
        self.scroll_to(0.375)
        seen = self.on_screen()
        (section, row, title), (_, _, target) = seen[2], seen[6]
        version = json.loads(self.served.run("--json", "show", "--from", "0:0", "--limit", "1"))["version"]
        self.driver.find_element(By.ID, "edit").click()
        handle = self.driver.find_element(By.XPATH, f"//li[span[@class='title' and text()='{title}']]/span[@class='handle']")
        onto = self.driver.find_element(By.XPATH, f"//li[span[@class='title' and text()='{target}']]")
        actions = ActionChains(self.driver, duration=50)
        actions.click_and_hold(handle).move_by_offset(0, 5).move_by_offset(0, 5)
        actions.move_to_element(onto).move_by_offset(0, 8).move_to_element(onto).move_by_offset(0, 10).release().perform()
        self.wait(lambda d: [r[2] for r in self.on_screen()].index(title) > 2, "the row lands lower")
        landed = [r for r in self.on_screen() if r[2] == title][0]
        self.shot("landed")
        self.driver.find_element(By.ID, "save").click()
        self.wait(lambda d: not d.find_element(By.ID, "save").is_displayed())
        self.wait(lambda d: self.shown_from(landed[0], landed[1], 1)[0][2] == title, "sectionctl show has the row where it landed")
        after = json.loads(self.served.run("--json", "show", "--from", "0:0", "--limit", "1"))["version"]
        self.assertEqual(after, version + 1, "one drag saved, one version")
        self.assertEqual(landed[0], section)
        self.assertTrue(row < landed[1] <= row + 5, f"the row went down by a few places, not to {landed[1]}")
        self.expect_screen_as_show_has_it("saved")

    def test_keyboard_reordering_in_the_middle_of_a_million_rows_saves_one_move(self):
        self.open()
        self.scroll_to(0.375)  # the middle of section 1
        seen = self.on_screen()
        section, row, title = seen[3]
        version = json.loads(self.served.run("--json", "show", "--from", "0:0", "--limit", "1"))["version"]
        self.driver.find_element(By.ID, "edit").click()
        item = self.driver.find_element(By.XPATH, f"//li[span[@class='title' and text()='{title}']]")
        item.send_keys(Keys.SPACE)
        for _ in range(30):  # beyond the screen: the page follows the row
            self.driver.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
        self.driver.switch_to.active_element.send_keys(Keys.SPACE)
        self.wait(lambda d: f"Dropped {title}" in d.find_element(By.ID, "live").text)
        self.assertLessEqual(self.row_count(), self.BOUND)
        self.shot("dropped")
        self.driver.find_element(By.ID, "save").click()
        self.wait(lambda d: self.shown_from(section, row + 30, 1)[0][2] == title, "sectionctl show has the row 30 places on")
        after = json.loads(self.served.run("--json", "show", "--from", "0:0", "--limit", "1"))["version"]
        self.assertEqual(after, version + 1, "one save, one version")
        self.expect_screen_as_show_has_it("saved")


if __name__ == "__main__":
    unittest.main(verbosity=2)
