"""More real clients on the portal's OAuth 2.0 sign-in (docs/identity.md, issue 46): the ArcGIS
API for Python 2.4.4 signing in as a registered app (its `GIS(url, user, password,
client_id=…)` path, and its PKCE class `EsriPKCEAuth`, which no `GIS` path uses: driven here as
a custom session) whose token runs out and is refreshed; the sign-in page in headless Chromium,
keyboard only, with its accessibility basics; and a red-team pass of the page: open
redirects, login CSRF, brute force, framing."""
import json
import os
import re
import subprocess
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.auth import EsriOAuth2Auth, EsriPKCEAuth, EsriSession  # noqa: E402
from arcgis.features import FeatureLayer  # noqa: E402
from arcgis.gis import GIS  # noqa: E402
from oauthlib.oauth2 import WebApplicationClient  # noqa: E402

from oauth_support import browser, generated_token, oauth_info, post, request_log  # noqa: E402
from conftest import BINARY, free_port, headless_chromium, needs_chromium, on_backend, running_server  # noqa: E402

# The servers' certificates are self-signed.
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

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


# 1. The ArcGIS API for Python 2.4.4 as a registered app.

def test_the_python_api_signs_in_as_a_registered_app_and_edits(portal, native_app):
    """`GIS(url, user, password, client_id=…)`: 2.4.4's `EsriOAuth2Auth` (its "SAML workflow"):
    the code flow out of band, without PKCE, reading the code from the approval page's title."""
    base, log = portal
    start = os.path.getsize(log)
    gis = GIS(base, "alice", PASSWORD, client_id=native_app["client_id"], verify_cert=False)
    auth = gis._con._session.auth
    assert isinstance(auth, EsriOAuth2Auth), auth
    assert gis.users.me.username == "alice"
    assert auth._token and auth._refresh_token and auth._token != auth._refresh_token
    # This client drops its token for the whole site (`…/arcgis`) after any answer with an
    # HTTP status of 400 to 499: the portal's errors must come as ArcGIS sends them (200 and
    # an envelope), or a missing route breaks its every later request ("Token Required").
    refused = [(line.get("method"), line.get("path"), line.get("status")) for line in request_log(log, start) if line.get("status", "").startswith("4")]
    assert not auth._invalid_token_urls, (auth._invalid_token_urls, refused)
    species = f"Native {uuid.uuid4().hex[:8]}"
    result = FeatureLayer(f"{base}/{TREES}", gis=gis).edit_features(adds=[{"attributes": {"species": species}, "geometry": {"x": 13.3, "y": 52.5}}])
    assert result["addResults"][0]["success"], result
    lines = request_log(log, start)
    steps = [(line.get("path", "").rsplit("/oauth2/", 1)[-1], line.get("status")) for line in lines if "/oauth2/" in line.get("path", "")]
    assert steps == [("authorize", "200"), ("signin", "302"), ("approval", "200"), ("token", "200")], steps
    assert not any("generateToken" in line.get("path", "") for line in lines)


def test_the_python_api_pkce_client_refreshes_when_its_token_expires(portal, native_app):
    """`EsriPKCEAuth` (the code flow with PKCE; no `GIS` path of 2.4.4 builds it, so it is
    given to `GIS` as its session's auth) asking 6-minute tokens: once its token expires (by
    its own reckoning) it refreshes with its refresh token and goes on working, twice."""
    base, log = portal
    auth = EsriPKCEAuth(base, "alice", PASSWORD, client_id=native_app["client_id"], expiration=PKCE_TOKEN_MINUTES, verify_cert=False)
    exchanges = []
    auth._session.trust_env = False
    auth._session.hooks["response"].append(lambda answer, **_: exchanges.append(answer) if answer.url.endswith("/oauth2/token") else None)
    session = EsriSession(auth=auth, verify_cert=False)
    session._session.trust_env = False
    gis = GIS(base, session=session, verify_cert=False)
    assert gis.users.me.username == "alice"
    assert isinstance(tree_count(base, gis).get("count"), int)
    first = auth._tokens
    assert first["expires_in"] == PKCE_TOKEN_MINUTES * 60 and first["refresh_token"], first
    assert [parse_qs(answer.request.body)["grant_type"] for answer in exchanges] == [["authorization_code"]]
    assert "code_verifier" in parse_qs(exchanges[0].request.body)

    tokens = [first["access_token"]]
    for refresh_number in (1, 2):
        start = os.path.getsize(log)
        time.sleep(PKCE_TOKEN_MINUTES * 60 - CLIENT_EXPIRY_MARGIN + 1)
        assert isinstance(tree_count(base, gis).get("count"), int), refresh_number
        refresh = exchanges[-1]
        form = parse_qs(refresh.request.body)
        assert form["grant_type"] == ["refresh_token"], (refresh_number, form)
        # Every refresh the client makes is answered with a token, not an error. As ArcGIS's
        # `refresh_token` grant leaves the refresh token valid (a new one comes from
        # `exchange_refresh_token`), 2.4.4 presents the one of its sign-in every time.
        assert refresh.status_code == 200 and "access_token" in refresh.json(), (refresh_number, refresh.request.body, refresh.text)
        assert auth._tokens["access_token"] not in tokens, refresh_number
        tokens.append(auth._tokens["access_token"])
        assert any(line.get("path", "").endswith("/oauth2/token") and line.get("status") == "200" for line in request_log(log, start)), refresh_number
    # The client's current token is the server's.
    assert browser().get(f"{base}/{TREES}/query", params={"where": "1=1", "returnCountOnly": "true", "f": "json", "token": tokens[-1]},
                         timeout=60).json().get("count") is not None


# 2. The sign-in page in a real browser, keyboard only.

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


@needs_chromium
def test_a_browser_signs_in_by_keyboard_and_lands_on_the_redirect_with_code_and_state(portal, browser_app, callback, chromium):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    base, _ = portal
    verifier, challenge = pkce_pair()
    state = uuid.uuid4().hex
    chromium.get(authorize_url(base, browser_app["client_id"], callback.url, state=state, code_challenge=challenge, code_challenge_method="S256"))
    accessible_basics(chromium)
    # The button comes after the password in Tab order.
    press(chromium, Keys.TAB, Keys.TAB, Keys.TAB)
    button = chromium.switch_to.active_element
    assert button.tag_name == "button" and button.get_attribute("type") == "submit", button.tag_name
    chromium.get(chromium.current_url)  # the page again, focus at its top
    before = len(callback.hits())
    sign_in_by_keyboard(chromium, "alice", PASSWORD)
    wait_for(chromium, lambda d: d.current_url.startswith(callback.url))
    assert len(callback.hits()) == before + 1
    query = parse_qs(urlsplit(callback.hits()[-1]).query)
    assert query["state"] == [state] and re.fullmatch(r"[0-9a-f]{64}", query["code"][0]), query
    assert chromium.find_element(By.TAG_NAME, "p").text == "back"
    # The code is good for the client holding the verifier.
    token = post(f"{base}/sharing/rest/oauth2/token", grant_type="authorization_code", code=query["code"][0], redirect_uri=callback.url,
                 client_id=browser_app["client_id"], code_verifier=verifier)
    assert token.get("username") == "alice" and token.get("access_token"), token


@needs_chromium
def test_a_browser_signs_in_by_keyboard_for_a_token_in_the_fragment(portal, browser_app, callback, chromium):
    base, _ = portal
    state = uuid.uuid4().hex
    chromium.get(authorize_url(base, browser_app["client_id"], callback.url, response_type="token", state=state))
    sign_in_by_keyboard(chromium, "alice", PASSWORD)
    wait_for(chromium, lambda d: d.current_url.startswith(callback.url))
    address = urlsplit(chromium.current_url)
    fragment = parse_qs(address.fragment)
    assert fragment["state"] == [state] and fragment["username"] == ["alice"], fragment
    # The token stays in the browser: the server on the callback saw no query.
    assert callback.hits()[-1] == "/callback" and not address.query
    count = browser().get(f"{base}/{TREES}/query", params={"where": "1=1", "returnCountOnly": "true", "f": "json", "token": fragment["access_token"][0]},
                          timeout=60).json()
    assert isinstance(count.get("count"), int), count


@needs_chromium
def test_a_wrong_password_is_announced_and_the_form_stays_usable_by_keyboard(portal, browser_app, callback, chromium):
    from selenium.webdriver.common.by import By

    base, _ = portal
    state = uuid.uuid4().hex
    chromium.get(authorize_url(base, browser_app["client_id"], callback.url, state=state))
    before = len(callback.hits())
    sign_in_by_keyboard(chromium, "alice", "not-the-password")
    alert = wait_for(chromium, lambda d: d.find_elements(By.CSS_SELECTOR, "[role='alert']"))[0]
    assert "Invalid username or password" in alert.text and alert.is_displayed()
    assert alert.aria_role == "alert"
    # Said before the form, so a screen reader reaches it first; the form is whole again.
    assert chromium.execute_script("return arguments[0].compareDocumentPosition(document.querySelector('form')) & 4", alert)
    accessible_basics(chromium)
    assert chromium.find_element(By.ID, "username").get_attribute("value") == "alice"
    assert len(callback.hits()) == before
    sign_in_by_keyboard(chromium, "alice", PASSWORD)
    wait_for(chromium, lambda d: d.current_url.startswith(callback.url))
    assert parse_qs(urlsplit(chromium.current_url).query)["state"] == [state]


# 3. The red team: open redirects, login CSRF, brute force, framing.

def redirect_variants(base, callback):
    portal = urlsplit(base).netloc
    registered_uri = callback.url
    return [
        "https://evil.example", "https://evil.example/callback", f"https://{portal}@evil.example/", f"https://{portal}@evil.example/arcgis",
        f"http://127.0.0.1:{callback.port}@evil.example/callback", f"https://evil.example\\@{portal}/arcgis", f"https://{portal}.evil.example/",
        "//evil.example", "//evil.example/callback", "///evil.example", "\\\\evil.example", "https:evil.example",
        registered_uri + ".evil.example", registered_uri + "/../../evil", registered_uri + "x", registered_uri + "?next=https://evil.example",
        registered_uri + "#@evil.example", registered_uri.replace("/callback", "//evil.example/callback"),
        registered_uri.upper(), "javascript:alert(1)", "JavaScript:alert(document.domain)//" + registered_uri,
        f"javascript://{portal}/%0aalert(1)", "data:text/html,<script>alert(1)</script>", "evil.example",
    ]


def leads_to_evil(answer):
    """Whether an answer sends a browser to a foreign place: a Location, a link, a form, a
    refresh, or a policy letting the form go there."""
    if answer.headers.get("Location"):
        return True
    if "evil.example" in answer.headers.get("Content-Security-Policy", "") or "javascript:" in answer.headers.get("Content-Security-Policy", ""):
        return True
    return bool(re.search(r"(href|action|src|formaction)\s*=\s*[\"']?\s*(javascript:|data:|[^\"'>]*evil\.example)|http-equiv", answer.text, re.I))


def test_no_redirect_uri_variant_leads_anywhere(portal, browser_app, callback):
    base, _ = portal
    clients = [browser_app["client_id"], "arcgisonline", "pythonapi"]
    for client_id in clients:
        for uri in redirect_variants(base, callback):
            for response_type in ("code", "token"):
                answer = browser().get(authorize_url(base, client_id, uri, response_type=response_type, state="s"), allow_redirects=False, timeout=60)
                assert answer.status_code == 400, (client_id, uri, answer.status_code)
                assert not leads_to_evil(answer), (client_id, uri, answer.headers, answer.text)
                info = oauth_info(answer.text)
                assert info and not info.get("oauth_state") and "<form" not in answer.text, (client_id, uri)
                assert "Invalid redirect_uri" in answer.text, (client_id, uri, answer.text)
            # Signing out with a redirect never goes there either.
            out = browser().get(f"{base}/sharing/rest/oauth2/signout", params={"client_id": client_id, "redirect_uri": uri}, allow_redirects=False,
                                timeout=60)
            assert "Location" not in out.headers and out.status_code in (200, 400), (client_id, uri, out.status_code, out.headers)
    # The registered address itself is allowed: the variants were refused for what they are.
    fine = browser().get(authorize_url(base, browser_app["client_id"], callback.url, state="s"), allow_redirects=False, timeout=60)
    assert fine.status_code == 200 and oauth_info(fine.text).get("oauth_state")


def sign_in_page(session, url):
    page = session.get(url, timeout=60)
    assert page.status_code == 200, page.text
    return oauth_info(page.text)["oauth_state"]


def refused_without_form(answer):
    assert answer.status_code == 400 and "Location" not in answer.headers, (answer.status_code, answer.headers)
    info = oauth_info(answer.text)
    assert info and info.get("error") == "invalid_request" and not info.get("oauth_state") and "<form" not in answer.text, answer.text


def test_a_state_of_one_browser_with_the_cookie_of_another_is_refused(portal, browser_app, callback):
    base, _ = portal
    url = authorize_url(base, browser_app["client_id"], callback.url, state="s")
    attacker, victim = browser(), browser()
    attacker_state = sign_in_page(attacker, url)
    victim_state = sign_in_page(victim, url)
    assert attacker.cookies.get("outpost_signin") != victim.cookies.get("outpost_signin")
    signin = f"{base}/sharing/oauth2/signin"
    for session, state in ((victim, attacker_state), (attacker, victim_state)):
        refused_without_form(session.post(signin, data={"oauth_state": state, "username": "alice", "password": PASSWORD}, allow_redirects=False, timeout=60))
    # Each browser's own pair goes through.
    answer = victim.post(signin, data={"oauth_state": victim_state, "username": "alice", "password": PASSWORD}, allow_redirects=False, timeout=60)
    assert answer.status_code == 302 and answer.headers["Location"].startswith(callback.url + "?code="), answer.headers


def test_the_sign_in_cookie_stays_home(portal, browser_app, callback):
    """The nonce cookie is what a cross-site form cannot send: HttpOnly, SameSite=Lax (a
    browser withholds it from another site's POST), Secure over HTTPS, on the sign-in's path."""
    base, _ = portal
    page = browser().get(authorize_url(base, browser_app["client_id"], callback.url), timeout=60)
    attributes = [part.strip().lower() for part in page.headers["Set-Cookie"].split(";")]
    assert attributes[0].startswith("outpost_signin=")
    assert {"httponly", "samesite=lax", "secure", "path=/arcgis/sharing"} <= set(attributes), attributes
    # A post as another site's form sends it (Origin and Sec-Fetch-Site of elsewhere, no cookie).
    state = oauth_info(page.text)["oauth_state"]
    refused_without_form(browser().post(f"{base}/sharing/oauth2/signin", data={"oauth_state": state, "username": "alice", "password": PASSWORD},
                                        headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Referer": "https://evil.example/"},
                                        allow_redirects=False, timeout=60))


def evil_form(action, state):
    return ("<!DOCTYPE html><html lang=\"en\"><title>win a prize</title><form method=\"post\" action=\"" + action + "\">"
            f"<input type=\"hidden\" name=\"oauth_state\" value=\"{state}\"><input type=\"hidden\" name=\"username\" value=\"alice\">"
            f"<input type=\"hidden\" name=\"password\" value=\"{PASSWORD}\"><button id=\"go\" type=\"submit\">go</button></form></html>")


@needs_chromium
def test_another_sites_form_cannot_sign_the_browser_in(portal, browser_app, callback, chromium):
    """Login CSRF in a real browser: a page of another site (localhost, not 127.0.0.1) posts the
    sign-in form with a state (the attacker's own, or even the victim's) to a browser that has
    the sign-in page open: the browser withholds the cookie, the server refuses."""
    from selenium.webdriver.common.by import By

    base, _ = portal
    url = authorize_url(base, browser_app["client_id"], callback.url, state="victim")
    chromium.get(url)
    victim_state = chromium.find_element(By.NAME, "oauth_state").get_attribute("value")
    attacker_state = sign_in_page(browser(), url)
    for name, state in (("attacker", attacker_state), ("victim", victim_state)):
        callback.pages[f"/evil-{name}"] = evil_form(f"{base}/sharing/oauth2/signin", state)
        before = len(callback.hits())
        chromium.get(f"{callback.elsewhere}/evil-{name}")
        chromium.find_element(By.ID, "go").click()
        alert = wait_for(chromium, lambda d: d.find_elements(By.CSS_SELECTOR, "[role='alert']"))[0]
        assert "did not come from the sign-in page" in alert.text, (name, alert.text)
        assert chromium.current_url.startswith(f"{base}/sharing/oauth2/signin") and not chromium.find_elements(By.TAG_NAME, "form"), name
        assert len(callback.hits()) == before, name
    # The same browser signs in from the page itself.
    chromium.get(url)
    sign_in_by_keyboard(chromium, "alice", PASSWORD)
    wait_for(chromium, lambda d: d.current_url.startswith(callback.url))


def csp_directives(answer):
    policy = answer.headers.get("Content-Security-Policy", "")
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


def framing_refused(answer):
    assert answer.headers.get("X-Frame-Options") == "DENY", (answer.url, answer.headers)
    directives = csp_directives(answer)
    assert directives.get("frame-ancestors") == ["'none'"] and directives.get("default-src") == ["'none'"], (answer.url, directives)
    assert not any(name.startswith("script-src") for name in directives), (answer.url, directives)
    assert answer.headers.get("Cache-Control") == "no-store", answer.headers


def test_every_sign_in_page_refuses_framing_and_script(portal, browser_app, callback):
    base, _ = portal
    session = browser()
    url = authorize_url(base, browser_app["client_id"], callback.url, state="s")
    page = session.get(url, timeout=60)
    framing_refused(page)
    assert csp_directives(page)["form-action"] == ["'self'", f"http://127.0.0.1:{callback.port}"]
    framing_refused(browser().get(authorize_url(base, browser_app["client_id"], "https://evil.example"), timeout=60))
    wrong = session.post(f"{base}/sharing/oauth2/signin", data={"oauth_state": oauth_info(page.text)["oauth_state"], "username": "nobody",
                                                                "password": "x"}, allow_redirects=False, timeout=60)
    assert wrong.status_code == 400
    framing_refused(wrong)
    framing_refused(browser().get(f"{base}/sharing/oauth2/approval", params={"code": "0" * 64}, timeout=60))


@needs_chromium
def test_another_site_cannot_frame_the_sign_in_page(portal, browser_app, callback, chromium):
    from selenium.webdriver.common.by import By

    base, _ = portal

    def framed(src):
        callback.pages["/frame"] = f"<!DOCTYPE html><html lang=\"en\"><title>frame</title><iframe id=\"f\" src=\"{src}\"></iframe></html>"
        chromium.get(f"{callback.elsewhere}/frame")
        time.sleep(2)
        chromium.switch_to.frame(chromium.find_element(By.ID, "f"))
        return chromium

    # A page that may be framed is drawn in the frame (the check sees into frames)…
    assert framed(callback.url).find_element(By.TAG_NAME, "p").text == "back"
    chromium.switch_to.default_content()
    # …the sign-in page is not.
    assert not framed(authorize_url(base, browser_app["client_id"], callback.url)).find_elements(By.ID, "password"), \
        "the sign-in form was drawn in another site's frame"


def throttle_page(answer):
    """A throttled sign-in: 429 with `Retry-After`, the page announcing it, nothing issued."""
    assert answer.status_code == 429 and "Location" not in answer.headers, (answer.status_code, answer.headers)
    wait = int(answer.headers["Retry-After"])
    assert wait >= 1
    assert 'role="alert"' in answer.text and "Too many" in answer.text
    framing_refused(answer)
    return wait


def test_brute_force_on_the_sign_in_page_is_throttled_with_generate_token(portal, browser_app, callback):
    """Ten wrong passwords through the page (waiting out each 429, so the waits grow):
    429 with Retry-After; then the right password is refused too, on the page and by
    `generateToken` (one throttle), until the wait has passed."""
    base, _ = portal
    # A success clears the throttle's records of the name and the address (127.0.0.1, as
    # every test's): the count starts here.
    generated_token(base, "alice", PASSWORD)
    session = browser()
    state = sign_in_page(session, authorize_url(base, browser_app["client_id"], callback.url, state="s"))
    signin = f"{base}/sharing/oauth2/signin"

    def attempt(password):
        nonlocal state
        answer = session.post(signin, data={"oauth_state": state, "username": "alice", "password": password}, allow_redirects=False, timeout=60)
        info = oauth_info(answer.text)
        if info and info.get("oauth_state"):
            state = info["oauth_state"]
        return answer

    statuses = []
    for guess in range(10):
        answer = attempt(f"guess-{guess}")
        statuses.append(answer.status_code)
        assert "Location" not in answer.headers, answer.headers
        if answer.status_code == 429:
            wait = throttle_page(answer)
            # Waited out (but for the last): the next guess is checked and the waits grow.
            if guess < 9:
                time.sleep(wait)
        else:
            assert answer.status_code == 400 and "Invalid username or password" in answer.text, (answer.status_code, answer.text)
    assert statuses[:3] == [400, 400, 400] and 429 in statuses, statuses
    assert statuses[-1] == 429, statuses

    right = attempt(PASSWORD)
    wait = throttle_page(right)
    token = browser().post(f"{base}/sharing/rest/generateToken", data={"username": "alice", "password": PASSWORD, "client": "requestip", "f": "json"},
                           timeout=60)
    assert "token" not in token.json(), token.text
    assert token.status_code == 429 or token.json().get("error", {}).get("code") == 429, (token.status_code, token.text)
    assert int(token.headers.get("Retry-After", "0")) >= 1, token.headers

    time.sleep(wait + 1)
    answer = attempt(PASSWORD)
    assert answer.status_code == 302 and answer.headers["Location"].startswith(callback.url + "?code="), (answer.status_code, answer.text)
    assert "token" in post(f"{base}/sharing/rest/generateToken", username="alice", password=PASSWORD, client="requestip")
