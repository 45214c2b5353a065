"""The issue's "first hour" in headless Chromium (docs/home.md): the admin signs in and adds an
editor; the editor uploads a zipped Shapefile and a zipped File Geodatabase and sees them become
services (the first held by the test target, so its progress shows), makes an offline-ready web
map of them and a map area; a device (the `outpost replica` client) takes a service offline and
syncs, and appears on the devices page; the admin unregisters it there and takes a backup. Every step is checked in the page and through the
REST API, and photographed for docs/home.md (OUTPOST_SCREENSHOTS=1).

The steps are tests of their own, in order, sharing `journey`."""
import io
import subprocess
import time
import urllib.request

import pytest
from conftest import BACKEND, BINARY, needs_chromium

import home_support as h

pytestmark = needs_chromium

EDITOR, EDITOR_PASSWORD = "fern", "fern-password-1"


@pytest.fixture(scope="module")
def base():
    # The test target holds a publish job while the page shows its progress.
    with h.home_server("--test-target") as base:
        yield base


@pytest.fixture(scope="module")
def driver():
    with h.browser() as driver:
        yield driver


@pytest.fixture(scope="module")
def journey():
    return {}


def wait_until(check, timeout=120, what="the condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    pytest.fail(f"{what} did not happen within {timeout} s")


def main_text(driver):
    return driver.execute_script("const m = document.querySelector('main'); return m ? m.innerText : ''") or ""


def submit(driver, form_selector):
    """Presses the form's submit button (the one a person would)."""
    from selenium.webdriver.common.by import By

    form = driver.find_element(By.CSS_SELECTOR, form_selector)
    form.find_element(By.CSS_SELECTOR, "button[type=submit], input[type=submit]").click()


def search(base, token, query):
    return h.rest(base, "/sharing/rest/search", token, q=query, num="100")["results"]


def test_1_admin_signs_in_and_adds_an_editor(base, driver, journey):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    h.sign_in(driver, base, "ada")
    assert "Administrator" in main_text(driver)
    h.screenshot(driver, "first-hour-index")
    driver.find_element(By.CSS_SELECTOR, "nav a[href$='organization.html']").click()
    driver.find_element(By.ID, "member-name").send_keys(EDITOR)
    driver.find_element(By.ID, "member-password").send_keys(EDITOR_PASSWORD)
    Select(driver.find_element(By.ID, "member-role")).select_by_value("org_publisher")
    submit(driver, "#member-form")
    h.wait_for_text(driver, f"'{EDITOR}' added")
    h.screenshot(driver, "first-hour-members")
    users = h.rest(base, "/sharing/rest/portals/self/users", h.token(base, "ada"), num="100")["users"]
    assert (EDITOR, "org_publisher") in [(u["username"], u["role"]) for u in users]
    journey["editor"] = h.token(base, EDITOR, EDITOR_PASSWORD)


def upload(driver, path, kind, title, name):
    """content.html's upload form, filled in and sent as a person would."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "upload-kind")).select_by_value(kind)
    driver.find_element(By.ID, "upload-file").send_keys(path)
    driver.find_element(By.ID, "upload-title").send_keys(title)
    driver.find_element(By.ID, "upload-name").send_keys(name)
    submit(driver, "form[action$='actions/upload']")


def control(base, path, data=None):
    """The test target's control API (an admin's under token security)."""
    root = base[: -len("/arcgis")]
    return h.rest(root, path, h.token(base, "ada"), data=data)


UPLOADS = {"Wells": ("shapefile", 0), "Well_sites": ("fileGeodatabase", 1)}


def test_2_editor_uploads_a_shapefile_and_a_geodatabase_that_become_services(base, driver, journey, tmp_path_factory):
    from selenium.webdriver.common.by import By

    files = h.shapefile_zip_and_gdb(str(tmp_path_factory.mktemp("uploads")))
    # Portal requests are all "portal" to a rule; the publish is the one naming a filetype.
    rule = '{"operation": "portal", "parameters": {"filetype": "shapefile"}, "job": {"hold": true}, "count": 1}'
    control(base, "/_outpost/faults", {"rule": rule})
    h.sign_in(driver, base, EDITOR, EDITOR_PASSWORD, page="content.html")
    assert driver.find_elements(By.ID, "upload-file"), "content.html has no upload form for an editor"
    upload(driver, files[0], "shapefile", "Wells survey", "Wells")
    # Held: the page shows the job's progress, and its script follows it.
    wait_until(lambda: driver.find_elements(By.ID, "publish-progress"), 30, "the publishing progress")
    held = wait_until(lambda: control(base, "/_outpost/jobs")["held"], 30, "the held publish job")
    h.screenshot(driver, "first-hour-publishing")
    control(base, f"/_outpost/jobs/{held[0]['jobId']}/release", {})
    h.wait_for_text(driver, "The service Wells is published.", timeout=60)
    assert driver.find_elements(By.ID, "published-item")
    h.screenshot(driver, "first-hour-published")
    driver.get(h.home(base, "content.html"))
    upload(driver, files[1], "fileGeodatabase", "Well sites", "Well_sites")
    h.wait_for_text(driver, "The service Well_sites is published.", timeout=60)
    for name in UPLOADS:
        count = h.rest(base, f"/rest/services/{name}/FeatureServer/0/query", journey["editor"], where="1=1", returnCountOnly="true")
        assert count == {"count": 3}, (name, count)
    mine = h.rest(base, f"/sharing/rest/content/users/{EDITOR}", journey["editor"])["items"]
    assert {"Shapefile", "File Geodatabase"} <= {item["type"] for item in mine}, mine


def services_for_the_map(base, journey):
    """The feature services the web map is made of: the two the editor uploaded."""
    found = [r for r in search(base, journey["editor"], 'type:"Feature Service"') if r["title"] in UPLOADS]
    assert len(found) == len(UPLOADS), f"the uploaded services are not in the portal: {found}"
    return sorted(found, key=lambda r: UPLOADS[r["title"]][1])


def test_3_editor_makes_an_offline_ready_web_map(base, driver, journey):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    h.sign_in(driver, base, EDITOR, EDITOR_PASSWORD)
    services = services_for_the_map(base, journey)
    driver.get(h.home(base, "webmap.html"))
    paths = [s["url"].split("127.0.0.1", 1)[1].split("/", 1)[1] for s in services]
    chosen = 0
    for box in driver.find_elements(By.CSS_SELECTOR, "#webmap-form input[type=checkbox][name^=layer-]"):
        if any(p in box.get_attribute("value") for p in paths):
            box.click()
            chosen += 1
    assert chosen, f"webmap.html offers no layer of {paths}"
    basemap = Select(driver.find_element(By.ID, "map-basemap"))
    if len(basemap.options) > 1:
        basemap.select_by_index(1)
    driver.find_element(By.ID, "map-title").send_keys("Wells map")
    tags = driver.find_element(By.ID, "map-tags")
    tags.clear()
    tags.send_keys("wells")
    offline = driver.find_element(By.ID, "map-offline")
    if not offline.is_selected():
        offline.click()
    h.screenshot(driver, "first-hour-webmap")
    submit(driver, "#webmap-form")
    wait_until(lambda: "item.html?id=" in driver.current_url, 30, "the new web map's item page")
    maps = [{"id": driver.current_url.split("id=", 1)[1].split("&", 1)[0]}]
    item = h.rest(base, f"/sharing/rest/content/items/{maps[0]['id']}", journey["editor"])
    assert "Offline" in item.get("typeKeywords", []), item.get("typeKeywords")
    data = h.rest(base, f"/sharing/rest/content/items/{maps[0]['id']}/data", journey["editor"])
    assert len(data["operationalLayers"]) == chosen, data
    # Saved with a thumbnail the server drew of the wells: a PNG any reader opens, not one colour.
    from PIL import Image

    picture = urllib.request.urlopen(f"{base}/sharing/rest/content/items/{maps[0]['id']}/info/{item['thumbnail']}?token={journey['editor']}").read()
    image = Image.open(io.BytesIO(picture))
    assert image.size == (200, 133) and len(image.convert("RGB").getcolors(10_000)) > 1, image
    journey["map"] = maps[0]["id"]


def test_4_editor_creates_a_map_area(base, driver, journey):
    from selenium.webdriver.common.by import By

    assert journey.get("map"), "no web map (step 3 failed)"
    driver.get(h.home(base, f"item.html?id={journey['map']}"))
    driver.find_element(By.ID, "area-title").send_keys("Wells area")
    driver.find_element(By.ID, "area-extent").send_keys("-106, 39, -104, 41")
    submit(driver, "#area-form")
    areas = wait_until(lambda: [r for r in search(base, journey["editor"], f'owner:{EDITOR}') if r["type"] == "Map Area"], 60,
                       "the map area item")
    wait_until(lambda: driver.refresh() or "Wells area" in main_text(driver), 30, "the map area on the item page")
    h.screenshot(driver, "first-hour-map-area")
    journey["area"] = areas[0]["id"]


def test_5_a_device_syncs_and_appears_on_devices(base, driver, journey, tmp_path):
    from selenium.webdriver.common.by import By

    service = services_for_the_map(base, journey)[0]
    url = service["url"]
    replica = str(tmp_path / "device.gpkg")
    listed = url.split("/arcgis", 1)[1] + "/replicas"
    for arguments in (["replica", "create", url, "--out", replica, "--token", journey["editor"]], ["replica", "sync", replica, "--token", journey["editor"]]):
        done = subprocess.run([BINARY, *arguments], capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stdout + done.stderr
    # The device's replica, as its file names it (a map area's packages are replicas too).
    status = subprocess.run([BINARY, "replica", "status", replica], capture_output=True, text=True, timeout=60).stdout
    device = next(line.split()[1] for line in status.splitlines() if line.startswith("replica:"))
    replicas = [r for r in h.rest(base, listed, h.token(base, "ada"), returnDetails="true") if r["replicaID"].strip("{}").lower() == device.strip("{}").lower()]
    assert len(replicas) == 1, (device, status)
    assert replicas[0].get("lastSyncDate"), replicas[0]
    name = url.split("/services/", 1)[1].split("/FeatureServer", 1)[0]
    h.sign_in(driver, base, "ada", page=f"devices.html?service={name}")
    driver.get(h.home(base, f"devices.html?service={name}"))
    table = driver.find_element(By.ID, "devices")
    assert replicas[0]["replicaID"].strip("{}").lower() in table.text.lower() or replicas[0].get("replicaName", "") in table.text, table.text
    h.screenshot(driver, "first-hour-devices")
    journey["device"] = (url, name, replicas[0]["replicaID"])


def test_6_admin_unregisters_the_device(base, driver, journey):
    from selenium.webdriver.common.by import By

    assert journey.get("device"), "no device (step 5 failed)"
    url, name, replica = journey["device"]
    forms = [f for f in driver.find_elements(By.CSS_SELECTOR, "form[action$='actions/unregisterReplica']")
             if f.find_element(By.CSS_SELECTOR, "input[name=replica]").get_attribute("value") == replica]
    assert forms, "no unregister form for the device's replica"
    form = forms[0]
    form.find_element(By.TAG_NAME, "summary").click()
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "[role=status]"), 30, "the unregister message")
    left = [r["replicaID"] for r in h.rest(base, url.split("/arcgis", 1)[1] + "/replicas", h.token(base, "ada"))]
    assert replica not in left, left


def test_7_admin_takes_a_backup(base, driver, journey):
    from selenium.webdriver.common.by import By

    admin = h.token(base, "ada")
    before = h.rest(base, "/rest/admin/backups", admin)
    h.sign_in(driver, base, "ada", page="organization.html")
    if BACKEND == "postgres":
        # PostgreSQL's data is backed up with its own tools: the page says so and offers no button.
        assert before.get("canTake") is False, before
        assert "PostgreSQL's tools" in main_text(driver)
        assert not driver.find_elements(By.ID, "backup-form")
        return
    forms = driver.find_elements(By.ID, "backup-form")
    assert forms, "organization.html has no backup form (part C: operations not built)"
    submit(driver, "#backup-form")
    h.wait_for_text(driver, "Backup outpost-backup-", timeout=120)
    after = h.rest(base, "/rest/admin/backups", admin)
    assert len(after.get("backups", [])) == len(before.get("backups", [])) + 1, after
    name = after["backups"][0]["name"]
    assert name in driver.find_element(By.ID, "backups").text
    h.screenshot(driver, "first-hour-backup")
