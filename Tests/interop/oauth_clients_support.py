"""Fixtures and browser helpers shared by test_oauth_clients.py and test_oauth_attacks.py: one
HTTPS portal with token security and an editor, a loopback redirect target, registered apps,
headless Chromium and keyboard steps on the sign-in page."""
import json
import os
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode, urlsplit

import pytest
from oauthlib.oauth2 import WebApplicationClient

from conftest import BINARY, free_port, headless_chromium, on_backend, running_server
from oauth_support import generated_token, post

PASSWORD = "alice-password-1"
OOB = "urn:ietf:wg:oauth:2.0:oob"
TREES = "rest/services/Demo/FeatureServer/2"
# The shortest token the API for Python's PKCE class can live with: it takes a token for
# expired 300 s before its `expires_in` (and refreshes again and again, without end, when
# `expires_in` is 300 s or less), so 6 minutes make it refresh after one.
PKCE_TOKEN_MINUTES = 6
CLIENT_EXPIRY_MARGIN = 300


class Callback:
    """A client's redirect target on loopback (a tiny http.server): records each request's
    path; answers a page of its own (`pages`: an attacker's site for the CSRF tests)."""

    def __init__(self):
        self.requests = []
        self.pages = {}
        callback = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                callback.requests.append(self.path)
                body = callback.pages.get(urlsplit(self.path).path, "<!DOCTYPE html><html lang=\"en\"><title>callback</title><p>back</p></html>")
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *arguments):
                pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.url = f"http://127.0.0.1:{self.port}/callback"
        # Another site to the browser (another host than the portal's 127.0.0.1).
        self.elsewhere = f"http://localhost:{self.port}"

    def hits(self):
        return [path for path in self.requests if path.startswith("/callback")]


@pytest.fixture(scope="module")
def callback():
    target = Callback()
    thread = threading.Thread(target=target.server.serve_forever, daemon=True)
    thread.start()
    yield target
    target.server.shutdown()
    target.server.server_close()


@pytest.fixture(scope="module")
def portal():
    """One HTTPS server with token security for the module, and alice, an editor."""
    data = tempfile.mkdtemp(prefix="outpost-oauth-clients-")
    added = subprocess.run(on_backend([BINARY, "users", "add", "alice", "--role", "editor", "--data", data]),
                           env={**os.environ, "OUTPOST_PASSWORD": PASSWORD}, capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    with running_server(data, "--require-auth", tls=True) as base:
        yield base, os.path.join(data, "server.log")


def registered(base, app_type, redirect_uris):
    """An `Application` item of alice's registered through `oauth2/registerApp`."""
    token = generated_token(base, "alice", PASSWORD)
    added = post(f"{base}/sharing/rest/content/users/alice/addItem", token=token, type="Application", title=f"{app_type} app")
    assert added.get("success") is True, added
    app = post(f"{base}/sharing/rest/oauth2/registerApp", token=token, itemId=added["id"], appType=app_type, redirect_uris=json.dumps(redirect_uris))
    assert app.get("client_id") and app["redirect_uris"] == redirect_uris, app
    return app


@pytest.fixture(scope="module")
def native_app(portal):
    """A native app as the API for Python signs in with: out of band, and (for its PKCE class,
    which sends the portal's URL as `redirect_uri`) the portal's own address."""
    base, _ = portal
    return registered(base, "native", [OOB, base])


@pytest.fixture(scope="module")
def browser_app(portal, callback):
    """A browser app redirected to the loopback callback."""
    base, _ = portal
    return registered(base, "browser", [callback.url, OOB])


def tree_count(base, gis):
    return gis._con.get(f"{base}/{TREES}/query", {"where": "1=1", "returnCountOnly": "true", "f": "json"})


@pytest.fixture
def chromium():
    with headless_chromium("--ignore-certificate-errors", "--window-size=1024,900") as driver:
        yield driver


def authorize_url(base, client_id, redirect_uri, response_type="code", **extra):
    return f"{base}/sharing/rest/oauth2/authorize?" + urlencode({"client_id": client_id, "response_type": response_type, "redirect_uri": redirect_uri,
                                                                 **extra})


def pkce_pair():
    client = WebApplicationClient("x")
    verifier = client.create_code_verifier(64)
    return verifier, client.create_code_challenge(verifier, "S256")


def press(driver, *keys):
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*keys).perform()


def select_all(driver):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()


def focused(driver):
    element = driver.switch_to.active_element
    return element.get_attribute("id") or element.tag_name


def sign_in_by_keyboard(driver, username, password):
    """From the page's top: Tab to the user name, type it, Tab, type the password, Enter."""
    from selenium.webdriver.common.keys import Keys

    press(driver, Keys.TAB)
    assert focused(driver) == "username", focused(driver)
    if driver.switch_to.active_element.get_attribute("value"):
        select_all(driver)
    press(driver, username, Keys.TAB)
    assert focused(driver) == "password", focused(driver)
    press(driver, password, Keys.ENTER)


def wait_for(driver, condition, seconds=30):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(lambda d: condition(d))


def accessible_basics(driver):
    """`html[lang]`, every visible input labelled (`label[for]`, and so named), the submit
    button reachable by Tab from the password."""
    from selenium.webdriver.common.by import By

    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang"), "html[lang] missing"
    inputs = [field for field in driver.find_elements(By.TAG_NAME, "input") if field.get_attribute("type") != "hidden"]
    assert {field.get_attribute("id") for field in inputs} == {"username", "password"}
    for field in inputs:
        labels = driver.find_elements(By.CSS_SELECTOR, f"label[for='{field.get_attribute('id')}']")
        assert len(labels) == 1 and labels[0].text.strip(), field.get_attribute("id")
        assert field.accessible_name == labels[0].text.strip(), (field.accessible_name, labels[0].text)
    buttons = driver.find_elements(By.CSS_SELECTOR, "form button[type='submit'], form input[type='submit']")
    assert len(buttons) == 1 and buttons[0].accessible_name, "no named submit button"
