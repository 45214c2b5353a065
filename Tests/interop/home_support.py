"""Shared pieces of the home's browser tests (docs/home.md): a server with token security and
one user per role, signing in through the portal's real sign-in page in headless Chromium,
axe-core's accessibility check, REST calls with a user's token, and the docs' screenshots."""
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse
import urllib.request

from conftest import BINARY, ROOT, headless_chromium, on_backend, running_server

PASSWORD = "home-password-1"
# Who the home tests sign in as: name → role as `outpost users add` takes it.
USERS = {"ada": "admin", "eddie": "editor", "erin": "editor", "vic": "viewer"}
SHOTS = os.path.join(ROOT, "docs", "home")
# The screenshots in docs/home/ are written only when asked, so a run leaves the repository's
# images as they are (CI works on a clone: asking there is harmless).
WRITE_SHOTS = os.environ.get("OUTPOST_SCREENSHOTS") == "1"


@contextlib.contextmanager
def home_server(*extra, binary=BINARY):
    """`outpost serve --require-auth` (and `extra`) with USERS added to its data folder (or
    database) first; yields the base address `http://127.0.0.1:PORT/arcgis`."""
    data = tempfile.mkdtemp(prefix="outpost-home-")
    environment = {**os.environ, "OUTPOST_PASSWORD": PASSWORD}
    for name, role in USERS.items():
        subprocess.run(on_backend([binary, "users", "add", name, "--role", role, "--data", data]), env=environment, check=True,
                       capture_output=True, timeout=120)
    try:
        with running_server(data, "--require-auth", "--backup-dir", os.path.join(data, "backups"), *extra, binary=binary) as base:
            yield base
    finally:
        shutil.rmtree(data, ignore_errors=True)


def token(base, username, password=PASSWORD):
    """A token for `username` from generateToken, as any REST client gets one."""
    body = urllib.parse.urlencode({"f": "json", "username": username, "password": password, "referer": base}).encode()
    answer = json.loads(urllib.request.urlopen(f"{base}/sharing/rest/generateToken", data=body, timeout=30).read())
    assert "token" in answer, answer
    return answer["token"]


def rest(base, path, token=None, data=None, **query):
    """GET (or POST `data`) `base + path` with `f=json` and the token; the decoded answer."""
    query = {"f": "json", **({"token": token} if token else {}), **query}
    if data is None:
        request = urllib.request.Request(f"{base}{path}?{urllib.parse.urlencode(query)}")
    else:
        request = urllib.request.Request(f"{base}{path}", data=urllib.parse.urlencode({**query, **data}).encode())
    return json.loads(urllib.request.urlopen(request, timeout=60).read())


@contextlib.contextmanager
def browser(width=1280, height=800):
    """Headless Chromium at a desktop window (or a phone's, 390×844)."""
    with headless_chromium(f"--window-size={width},{height}") as driver:
        driver.set_window_size(width, height)
        yield driver


def home(base, page=""):
    return f"{base}/home/{page}"


def sign_in(driver, base, username, password=PASSWORD, page="index.html"):
    """The home's `signin.html` → the portal's sign-in page (its form, typed in) → back to the
    home signed in: the page's header names the user."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.delete_all_cookies()
    driver.get(home(base, f"signin.html?returnTo={page}"))
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "username"))
    assert "/sharing/" in driver.current_url, driver.current_url
    driver.find_element(By.ID, "username").send_keys(username)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    WebDriverWait(driver, 30).until(lambda d: "/home/" in d.current_url and d.find_elements(By.CSS_SELECTOR, "header .who form"))
    assert driver.find_element(By.CSS_SELECTOR, "header .who a").text, "the header names nobody"


def sign_out(driver):
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, "header .who form button").click()


def serious_violations(driver):
    """axe-core (axe-selenium-python's copy) run on the page: its serious and critical
    violations, as `id: target…` lines. Selenium's script runs outside the page's policy in
    Chromium, so the page's CSP (no inline script) does not stop the injection; a check that
    axe really ran guards against a silent refusal."""
    from axe_selenium_python import Axe

    axe = Axe(driver)
    axe.inject()
    assert driver.execute_script("return typeof axe === 'object' && typeof axe.run === 'function'"), "axe-core was not injected"
    results = axe.run()
    assert results.get("passes"), "axe-core ran no check"
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results["violations"] if v.get("impact") in ("serious", "critical")]


def screenshot(driver, name, phone=False):
    """docs/home/<name>.png at 1280×800 (or `phone-<name>.png` at 390×844), when asked."""
    if not WRITE_SHOTS:
        return
    os.makedirs(SHOTS, exist_ok=True)
    width, height = (390, 844) if phone else (1280, 800)
    driver.set_window_size(width, height)
    driver.save_screenshot(os.path.join(SHOTS, f"{'phone-' if phone else ''}{name}.png"))
    if phone:
        driver.set_window_size(1280, 800)


def cookies_of(driver):
    """The browser's cookies for `requests` (a hand-made post with the page's session)."""
    return {c["name"]: c["value"] for c in driver.get_cookies()}


def csrf_of(driver):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, "input[name=csrf]").get_attribute("value")


def shapefile_zip_and_gdb(folder, name="Wells"):
    """A small GeoJSON made into a zipped Shapefile and a zipped File Geodatabase with ogr2ogr."""
    geojson = os.path.join(folder, f"{name}.geojson")
    features = [{"type": "Feature", "properties": {"label": f"well {i}", "depth": 10.5 + i},
                 "geometry": {"type": "Point", "coordinates": [-105.0 + i * 0.01, 40.0 + i * 0.01]}} for i in range(3)]
    with open(geojson, "w") as out:
        json.dump({"type": "FeatureCollection", "features": features}, out)
    shape = os.path.join(folder, "shape")
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", shape, geojson, "-nln", name], check=True, capture_output=True)
    shutil.make_archive(os.path.join(folder, name), "zip", shape)
    gdb = os.path.join(folder, f"{name}Gdb.gdb")
    subprocess.run(["ogr2ogr", "-f", "OpenFileGDB", gdb, geojson, "-nln", f"{name}Gdb"], check=True, capture_output=True)
    shutil.make_archive(os.path.join(folder, f"{name}Gdb.gdb"), "zip", folder, f"{name}Gdb.gdb")
    return os.path.join(folder, f"{name}.zip"), os.path.join(folder, f"{name}Gdb.gdb.zip")


def upload_item(base, token, owner, path, item_type):
    """`addItem` with the file at `path`, as a client uploads one; the new item's id."""
    import requests

    with open(path, "rb") as file:
        answer = requests.post(f"{base}/sharing/rest/content/users/{owner}/addItem", timeout=60,
                               data={"f": "json", "token": token, "type": item_type, "title": os.path.basename(path)},
                               files={"file": (os.path.basename(path), file)}).json()
    assert answer.get("success"), answer
    return answer["id"]


def tab_to(driver, keys, element_id, what):
    """Presses Tab (through `keys`, an ActionChains) until the element `element_id` has the focus."""
    import pytest
    from selenium.webdriver.common.keys import Keys

    for _ in range(250):
        keys.send_keys(Keys.TAB).perform()
        if driver.execute_script("return document.activeElement.id") == element_id:
            return
    pytest.fail(f"Tab never reached {what}")


def wait_for_text(driver, text, timeout=30):
    """Waits until the page's main landmark shows `text`."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: text in (d.execute_script("const m = document.querySelector('main'); return m ? m.innerText : ''") or ""))
