"""The home's pages in headless Chromium are usable without a mouse and by assistive technology
(docs/home.md, "Accessibility"): axe-core finds no serious or critical violation on any page,
the keyboard alone makes a folder and uploads a file that becomes a service, and no page
scrolls sideways on a phone."""
import pytest
from conftest import needs_chromium

import home_support as h

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def base():
    with h.home_server() as base:
        yield base


@pytest.fixture(scope="module")
def items(base, tmp_path_factory):
    """The demo's feature service and web map, and a file ada published: their item ids (and the job's)."""
    admin = h.token(base, "ada")
    results = h.rest(base, "/sharing/rest/search", admin, q="*", num="100")["results"]
    by_type = {r["type"]: r["id"] for r in results}
    shapefile, _ = h.shapefile_zip_and_gdb(str(tmp_path_factory.mktemp("a11y")), name="AxeWells")
    added = h.upload_item(base, admin, "ada", shapefile, "Shapefile")
    published = h.rest(base, "/sharing/rest/content/users/ada/publish", admin,
                       data={"itemID": added, "filetype": "shapefile", "publishParameters": '{"name": "AxeWells"}'})["services"][0]
    return {"service": by_type["Feature Service"], "map": by_type["Web Map"],
            "publishing": f"publishing.html?id={published['serviceItemId']}&job={published['jobId']}"}


def test_no_serious_violation_on_any_page(base, items):
    from selenium.webdriver.common.by import By

    pages = ["index.html", "content.html", f"item.html?id={items['service']}", f"item.html?id={items['map']}", "webmap.html",
             "devices.html", "organization.html", "user.html", items["publishing"]]
    found = {}
    with h.browser() as driver:
        driver.get(h.home(base, "index.html"))
        found["index.html (visitor)"] = h.serious_violations(driver)
        driver.get(h.home(base, "signin.html"))
        found["the portal's sign-in page"] = h.serious_violations(driver)
        h.sign_in(driver, base, "ada")
        for page in pages:
            driver.get(h.home(base, page))
            if "Page not found" in driver.title or not driver.find_elements(By.CSS_SELECTOR, "main h1"):
                found[page] = ["the page is not built (no page, or no main heading)"]
                continue
            found[page] = h.serious_violations(driver)
    problems = {page: violations for page, violations in found.items() if violations}
    assert not problems, problems


def focused(driver):
    return driver.execute_script(
        "const e = document.activeElement; return [e.tagName.toLowerCase(), e.id, e.type || '', e.name || '', e.getAttribute('href') || '',"
        " getComputedStyle(e).outlineStyle, getComputedStyle(e).outlineWidth, e.closest('form') ? e.closest('form').getAttribute('action') : '']")


def test_keyboard_makes_a_folder(base):
    """Typing and Space alone submit a form: the folder exists in the REST API afterwards."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    with h.browser() as driver:
        h.sign_in(driver, base, "erin", page="content.html")
        keys = ActionChains(driver)
        h.tab_to(driver, keys, "folder-title", "the new folder's name")
        keys.send_keys("Keyboard folder").send_keys(Keys.TAB).perform()
        assert driver.execute_script("return document.activeElement.type") == "submit"
        keys.send_keys(Keys.SPACE).perform()
        h.wait_for_text(driver, "Keyboard folder")
    folders = h.rest(base, "/sharing/rest/content/users/erin", h.token(base, "erin"))["folders"]
    assert [f["title"] for f in folders] == ["Keyboard folder"]


def test_keyboard_uploads_a_file_that_becomes_a_service(base, tmp_path):
    """Tab reaches the upload form's fields in order; the file is typed into its field (what a
    keyboard user's file dialog does), Space sends the form, and the service exists afterwards."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    shapefile, _ = h.shapefile_zip_and_gdb(str(tmp_path), name="KeyWells")
    with h.browser() as driver:
        h.sign_in(driver, base, "erin", page="content.html")
        keys = ActionChains(driver)
        h.tab_to(driver, keys, "upload-kind", "the upload form")
        order = []
        for text in (None, shapefile, "Wells by keyboard", "Keyboard_wells"):
            order.append(driver.execute_script("return document.activeElement.id"))
            if text:
                driver.switch_to.active_element.send_keys(text)
            keys.send_keys(Keys.TAB).perform()
        assert order == ["upload-kind", "upload-file", "upload-title", "upload-name"], order
        assert driver.execute_script("return document.activeElement.id") == "upload-submit"
        keys.send_keys(Keys.SPACE).perform()
        h.wait_for_text(driver, "The service Keyboard_wells is published.", timeout=60)
    count = h.rest(base, "/rest/services/Keyboard_wells/FeatureServer/0/query", h.token(base, "erin"), where="1=1", returnCountOnly="true")
    assert count == {"count": 3}, count


def test_phone_width_has_no_sideways_scroll(base):
    with h.browser(390, 844) as driver:
        h.sign_in(driver, base, "eddie")
        for page in ("index.html", "content.html"):
            driver.get(h.home(base, page))
            overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, f"{page} scrolls sideways by {overflow}px at 390px"
            if page == "index.html":  # content's is test_home_browser.py's phone-content.png
                h.screenshot(driver, "index", phone=True)
