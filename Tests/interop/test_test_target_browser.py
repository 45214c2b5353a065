"""The test target in a real browser (headless Chromium, Selenium; docs/testing-your-app.md,
"The page and who may use the control API"): the control page works under the policy the
server sends (the journal live, faults, the clock's buttons, by keyboard too), and a web app on
another origin reads an injected fault as ArcGIS shapes errors."""
import json
import urllib.parse
import urllib.request

import pytest

from conftest import eventually, headless_chromium, needs_chromium, running_server  # noqa: E402
from test_cors import FETCH, TREES, page_origin  # noqa: E402

pytestmark = needs_chromium

ADD = json.dumps([{"attributes": {"species": "Fault target"}, "geometry": {"x": 13.4, "y": 52.5}}])


@pytest.fixture(scope="module")
def browser():
    with headless_chromium() as driver:
        yield driver


def api(root, path, form=None):
    data = urllib.parse.urlencode({"f": "json", **form}).encode() if form is not None else None
    url = f"{root}/_outpost/{path}" + ("" if data else ("&" if "?" in path else "?") + "f=json")
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=10) as response:
        return json.loads(response.read())


def table_rows(browser, table):
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr'))"
        ".map(r => Array.from(r.cells).map(c => c.textContent));", table)


def test_the_page_shows_the_journal_faults_and_moves_the_clock(browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with running_server(None, "--test-target") as base:
        root = base.rsplit("/arcgis", 1)[0]
        browser.get(f"{root}/_outpost/")
        # The script ran under the page's policy: the clock is filled in.
        eventually(lambda: browser.find_element(By.ID, "clock-now").text.startswith("20"), "the clock on the page")
        # A request made meanwhile appears in the live journal, newest first.
        with urllib.request.urlopen(f"{base}/{TREES}/query?where=1%3D1&returnCountOnly=true&f=json") as response:
            assert json.loads(response.read())["count"] > 0
        row = eventually(lambda: next((r for r in table_rows(browser, "journal") if r[3] == "query" and r[4] == "Demo"), None),
                         "the query in the journal")
        assert row[2] == "GET" and row[5] == "200", row
        # A fault added through the API appears in the page's list.
        rule = api(root, "faults", {"rule": json.dumps({"operation": "applyEdits", "error": {"code": 500, "message": "Injected"}})})["rule"]
        listed = eventually(lambda: next((r for r in table_rows(browser, "faults") if r[0] == rule["id"]), None), "the fault on the page")
        assert "applyEdits" in listed[1] and "Injected" in listed[1], listed
        # The clock's buttons move the server's clock: a click, then the keyboard.
        browser.find_element(By.ID, "clock-hour").click()
        eventually(lambda: api(root, "clock")["offset"] == 3_600_000, "the clock advanced an hour")
        day = browser.find_element(By.ID, "clock-day")
        day.send_keys(Keys.ENTER)
        eventually(lambda: api(root, "clock")["offset"] == 3_600_000 + 86_400_000, "the clock advanced a day by keyboard")
        eventually(lambda: "25.000 h" in browser.find_element(By.ID, "clock-offset").text, "the page's offset")
        # Removing the fault from the page removes it on the server.
        browser.find_element(By.XPATH, f"//button[text()='Remove {rule['id']}']").click()
        eventually(lambda: api(root, "faults")["rules"] == [], "the fault removed")
        # Held jobs and snapshots are tables with headers, labelled controls.
        headers = browser.execute_script("return Array.from(document.querySelectorAll('#snapshots th')).map(h => h.scope);")
        assert headers and all(scope == "col" for scope in headers)
        assert browser.find_element(By.CSS_SELECTOR, "label[for='snapshot-name']").text


def test_a_page_elsewhere_reads_an_injected_fault_as_arcgis_shapes_it(browser):
    with running_server(None, "--test-target") as base, page_origin() as app:
        root = base.rsplit("/arcgis", 1)[0]
        api(root, "faults", {"rule": json.dumps({"service": "Demo", "operation": "applyEdits",
                                                  "error": {"code": 500, "message": "Injected"}})})
        browser.get(app)
        init = {"method": "POST", "headers": {"Content-Type": "application/x-www-form-urlencoded"}, "cache": "no-store",
                "body": urllib.parse.urlencode({"f": "json", "adds": ADD})}
        answer = browser.execute_async_script(FETCH, f"{base}/{TREES}/applyEdits", init)
        assert "body" in answer, answer
        error = json.loads(answer["body"])["error"]
        assert error["code"] == 500 and error["message"] == "Injected" and isinstance(error.get("details", []), list), answer
        # Nothing was added; the journal names the rule that answered.
        with urllib.request.urlopen(f"{base}/{TREES}/query?where=species%3D%27Fault%20target%27&returnCountOnly=true&f=json") as response:
            assert json.loads(response.read())["count"] == 0
        entry = api(root, "journal?operation=applyEdits")["entries"][-1]
        assert entry["fault"] and entry["errorCode"] == 500, entry
