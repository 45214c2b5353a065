"""The home in a real browser (headless Chromium, Selenium; docs/home.md): a new organisation's
first hour, each step checked in the page and through the REST API; a viewer's rights;
axe-core on every page; the keyboard alone. Screenshots for docs/home.md with
OUTPOST_SCREENSHOTS=1."""
import os
import subprocess
import tempfile
import urllib.parse

import pytest
import requests

from conftest import BINARY, headless_chromium, needs_chromium
from home_browser_support import (cookies_of, eventually, home_server, rest, screenshot, serious_violations, sign_in,
                          token)

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def root():
    with home_server() as base:
        yield base


@pytest.fixture(scope="module")
def driver():
    with headless_chromium("--window-size=1280,900") as chromium:
        yield chromium


def by(kind):
    from selenium.webdriver.common.by import By
    return getattr(By, kind)


def left(driver, page):
    """Waits until the browser has left `page` (its old `html` element). Chromium may answer a
    question about that element, asked while the next page replaces it, with an inspector
    error ("Node with given id does not belong to the document") instead of a stale reference:
    either means it has gone."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def gone(_):
        try:
            page.is_enabled()
            return False
        except WebDriverException:
            return True
    WebDriverWait(driver, 60).until(gone)


def submit_form(driver, form_id):
    """Submits the form and waits for the page its action answers."""
    page = driver.find_element(by("TAG_NAME"), "html")
    driver.find_element(by("ID"), form_id).find_element(by("CSS_SELECTOR"), "button[type=submit]").click()
    left(driver, page)


def flash(driver, seconds=30):
    """The message the last action left, once the page after it has loaded."""
    found = eventually(lambda: driver.find_elements(by("CSS_SELECTOR"), ".flash"), "the action's message", seconds)
    return found[0].text


def test_a_new_organisations_first_hour(root, driver):
    # The admin signs in and adds an editor.
    sign_in(driver, root, "ada")
    screenshot(driver, "index")
    driver.get(f"{root}/home/organization.html")
    driver.find_element(by("ID"), "member-name").send_keys("fern")
    driver.find_element(by("ID"), "member-password").send_keys("fern-password-1")
    submit_form(driver, "member-form")
    assert "'fern' added" in flash(driver)
    screenshot(driver, "organization")
    fern_token = token(root, "fern", "fern-password-1")
    me = rest(root, "sharing/rest/portals/self", key=fern_token)
    assert me["user"]["username"] == "fern" and me["user"]["role"] == "org_publisher"

    # The editor makes a web map of the demo's trees and parcels over the basemap, ready offline.
    sign_in(driver, root, "fern", "fern-password-1")
    driver.get(f"{root}/home/webmap.html")
    driver.find_element(by("ID"), "map-title").send_keys("Street trees")
    for box in driver.find_elements(by("CSS_SELECTOR"), "input[type=checkbox][name^=layer-]"):
        value = box.get_attribute("value")
        if "/Demo/FeatureServer/2|" in value or "/Parcels/FeatureServer/0|" in value:
            box.click()
    from selenium.webdriver.support.ui import Select
    select = Select(driver.find_element(by("ID"), "map-basemap"))
    select.select_by_index(1)
    submit_form(driver, "webmap-form")
    assert "Web map saved." in flash(driver)
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)
    map_id = query["id"][0]
    data = rest(root, f"sharing/rest/content/items/{map_id}/data", key=fern_token)
    assert len(data["operationalLayers"]) == 2 and data["applicationProperties"]["offline"]
    assert "Offline" in rest(root, f"sharing/rest/content/items/{map_id}", key=fern_token)["typeKeywords"]

    # A map area of it, made from its item page.
    driver.find_element(by("ID"), "area-title").send_keys("Centre")
    driver.find_element(by("ID"), "area-extent").send_keys("13.3, 52.4, 13.5, 52.6")
    submit_form(driver, "area-form")
    assert "Map area 'Centre' created" in flash(driver)
    areas = rest(root, f"sharing/rest/content/items/{map_id}/relatedItems",
                 {"relationshipTypes": "Map2Area", "direction": "forward"}, key=fern_token)["relatedItems"]
    assert [area["title"] for area in areas] == ["Centre"]
    screenshot(driver, "item-webmap")

    # A device (the client library, as `outpost replica create`) takes the trees offline.
    admin_token = token(root, "ada")

    def replica_ids():
        return {r["replicaID"] for r in rest(root, "rest/services/Demo/FeatureServer/replicas", {"returnDetails": "true"},
                                             key=admin_token)}
    before = replica_ids()
    out = os.path.join(tempfile.mkdtemp(prefix="home-device-"), "trees.gpkg")
    subprocess.run([BINARY, "replica", "create", f"{root}/rest/services/Demo/FeatureServer", "--out", out,
                    "--layers", "2", "--token", fern_token], check=True, capture_output=True, timeout=300)
    (device,) = replica_ids() - before
    driver.get(f"{root}/home/devices.html?service=Demo")
    assert device in driver.find_element(by("ID"), "devices").text
    screenshot(driver, "devices")

    # The admin unregisters the device.
    sign_in(driver, root, "ada")
    driver.get(f"{root}/home/devices.html?service=Demo")
    row = [r for r in driver.find_elements(by("CSS_SELECTOR"), "#devices tbody tr") if device in r.text][0]
    row.find_element(by("TAG_NAME"), "summary").click()
    page = driver.find_element(by("TAG_NAME"), "html")
    row.find_element(by("CSS_SELECTOR"), "button[type=submit]").click()
    left(driver, page)
    assert "Replica unregistered" in flash(driver)
    assert device not in replica_ids() and len(replica_ids()) == len(before)


def test_a_viewer_sees_no_controls_and_the_same_forms_by_hand_are_refused(root, driver):
    editor = token(root, "eve")
    added = rest(root, "sharing/rest/content/users/eve/addItem",
                 {"type": "Web Mapping Application", "title": "Eve's app", "url": "https://example.com"}, key=editor)
    item = added["id"]
    rest(root, f"sharing/rest/content/users/eve/items/{item}/share", {"org": "true"}, key=editor)
    sign_in(driver, root, "vic")
    for page in ("content.html", f"item.html?id={item}", "webmap.html", "devices.html?service=Demo"):
        driver.get(f"{root}/home/{page}")
        source = driver.page_source
        for control in ("actions/share", "actions/deleteItem", "actions/updateItem", "actions/createFolder", "webmap-form",
                        "area-form"):
            assert control not in source, f"{page} offers {control} to a viewer"
    assert "organization.html" not in driver.find_element(by("TAG_NAME"), "nav").get_attribute("innerHTML")
    # The forms posted by hand, with the viewer's cookies and the page's own secret.
    session = requests.Session()
    for name, value in cookies_of(driver).items():
        session.cookies.set(name, value)
    driver.get(f"{root}/home/content.html")
    secret = driver.find_element(by("CSS_SELECTOR"), "input[name=csrf]").get_attribute("value")
    origin = root.rsplit("/arcgis", 1)[0]
    for action, form in (("deleteItem", {"id": item}), ("updateItem", {"id": item, "title": "Taken"}),
                         ("share", {"id": item, "access": "public"})):
        answer = session.post(f"{root}/home/actions/{action}", data={"csrf": secret, **form}, headers={"Origin": origin})
        assert "flash failed" in answer.text, f"{action}: {answer.text[:300]}"
    # Another editor cannot change it either.
    sign_in(driver, root, "ada")  # leaves the viewer's session
    other = rest(root, f"sharing/rest/content/items/{item}", key=editor)
    assert other["title"] == "Eve's app" and other["access"] == "org"


PAGES = ["index.html", "content.html", "webmap.html", "devices.html", "devices.html?service=Demo", "organization.html",
         "user.html", "item.html?id=de3000000000000000000000000000a1"]


def test_every_page_has_no_serious_accessibility_violation(root, driver):
    driver.delete_all_cookies()
    driver.get(f"{root}/home/index.html")
    findings = {"index.html (signed out)": serious_violations(driver)}
    driver.get(f"{root}/home/signin.html")
    eventually(lambda: "oauth2" in driver.current_url, "the portal's sign-in page")
    findings["the portal's sign-in page"] = serious_violations(driver)
    sign_in(driver, root, "ada")
    service = rest(root, "sharing/rest/search", {"q": "title:Demo AND type:\"Feature Service\""},
                   key=token(root, "ada"))["results"][0]["id"]
    for page in PAGES + [f"item.html?id={service}"]:
        driver.get(f"{root}/home/{page}")
        findings[page] = serious_violations(driver)
    assert not any(findings.values()), {page: found for page, found in findings.items() if found}


def test_the_keyboard_alone_makes_a_folder_with_the_focus_always_visible(root, driver):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    sign_in(driver, root, "eve")
    driver.get(f"{root}/home/content.html")
    ActionChains(driver).send_keys(Keys.TAB).perform()
    first = driver.switch_to.active_element
    assert first.text == "Skip to content", "the skip link comes first"
    seen = []
    for _ in range(200):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        focused = driver.switch_to.active_element
        seen.append(focused.get_attribute("id") or focused.tag_name)
        outline = driver.execute_script("return getComputedStyle(arguments[0]).outlineStyle", focused)
        assert outline != "none", f"no visible focus on {seen[-1]}"
        if focused.get_attribute("id") == "folder-title":
            break
    else:
        pytest.fail(f"the folder's name was never reached: {seen}")
    ActionChains(driver).send_keys("Keyboard folder").send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element.text == "Create folder"
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    eventually(lambda: "Folder 'Keyboard folder' created" in flash(driver), "the folder made")
    screenshot(driver, "content")
    folders = rest(root, "sharing/rest/content/users/eve", key=token(root, "eve"))["folders"]
    assert "Keyboard folder" in [f["title"] for f in folders]


def test_pages_fit_a_phone(root):
    with headless_chromium() as phone:
        # A phone's viewport (a headless window has a minimum width of its own).
        phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                              {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
        sign_in(phone, root, "eve")
        for page in ("index.html", "content.html", "devices.html?service=Demo", "webmap.html"):
            phone.get(f"{root}/home/{page}")
            width, scrolled = phone.execute_script(
                "return [document.documentElement.clientWidth, document.documentElement.scrollWidth]")
            assert width <= 400 and scrolled <= width, f"{page} scrolls sideways on a phone: {scrolled} px in {width}"
        phone.get(f"{root}/home/content.html")
        screenshot(phone, "phone-content")
