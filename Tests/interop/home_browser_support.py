"""What test_home_browser.py uses (docs/home.md): a server with token security and an admin,
an editor and a viewer; signing in through the home in headless Chromium as a person does;
axe-core's serious and critical findings; screenshots for docs/home.md."""
import contextlib
import json
import os
import subprocess
import tempfile
import urllib.parse
import urllib.request

from conftest import BINARY, ROOT, eventually, on_backend, running_server  # noqa: F401 (eventually: for the tests)

USERS = {"ada": "admin", "eve": "editor", "vic": "viewer"}
SCREENSHOTS = os.path.join(ROOT, "docs", "home")


def password(user):
    return f"{user}-password-1"


@contextlib.contextmanager
def home_server():
    """A server with --require-auth and the users of USERS; yields `http://host:port/arcgis`."""
    data = tempfile.mkdtemp(prefix="outpost-home-")
    for user, role in USERS.items():
        subprocess.run(on_backend([BINARY, "users", "add", user, "--role", role, "--data", data]),
                       env=dict(os.environ, OUTPOST_PASSWORD=password(user)), check=True, capture_output=True)
    with running_server(data, "--require-auth") as base:
        yield base


def token(root, user, secret=None):
    form = urllib.parse.urlencode({"username": user, "password": secret or password(user), "f": "json",
                                   "referer": "home-tests", "expiration": "60"}).encode()
    with urllib.request.urlopen(f"{root}/sharing/rest/generateToken", data=form, timeout=30) as response:
        return json.loads(response.read())["token"]


def rest(root, path, form=None, key=None):
    """A REST call's JSON: GET without `form`, else a POST of it."""
    fields = {"f": "json", **({"token": key} if key else {}), **(form or {})}
    if form is None:
        url, data = f"{root}/{path}?{urllib.parse.urlencode(fields)}", None
    else:
        url, data = f"{root}/{path}", urllib.parse.urlencode(fields).encode()
    with urllib.request.urlopen(url, data=data, timeout=60) as response:
        return json.loads(response.read())


def sign_in(driver, root, user, secret=None):
    """Signs in through the home's sign-in link, the portal's page and back, as a person does."""
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(f"{root}/home/index.html")
    driver.find_element(By.LINK_TEXT, "Sign in").click()
    eventually(lambda: driver.find_elements(By.NAME, "username"), "the portal's sign-in page", 30)
    driver.find_element(By.NAME, "username").send_keys(user)
    driver.find_element(By.NAME, "password").send_keys(secret or password(user))
    driver.find_element(By.CSS_SELECTOR, "form [type=submit]").click()
    eventually(lambda: "/arcgis/home/" in driver.current_url and "Sign out" in driver.page_source, f"{user} signed in", 30)


def serious_violations(driver):
    """axe-core's findings of serious or critical impact on the page shown."""
    from axe_selenium_python import Axe

    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
            for v in results["violations"] if v.get("impact") in ("serious", "critical")]


def screenshot(driver, name):
    """The page as docs/home.md shows it, written there with OUTPOST_SCREENSHOTS=1 (else to a
    temporary folder, so a test run leaves the tree as it was)."""
    folder = SCREENSHOTS if os.environ.get("OUTPOST_SCREENSHOTS") == "1" else tempfile.gettempdir()
    os.makedirs(folder, exist_ok=True)
    assert driver.save_screenshot(os.path.join(folder, f"{name}.png"))


def cookies_of(driver):
    return {cookie["name"]: cookie["value"] for cookie in driver.get_cookies()}
