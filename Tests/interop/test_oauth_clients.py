"""More real clients on the portal's OAuth 2.0 sign-in (docs/identity.md, issue 46): the ArcGIS
API for Python 2.4.4 signing in as a registered app (its `GIS(url, user, password,
client_id=…)` path, and its PKCE class `EsriPKCEAuth`, which no `GIS` path uses: driven here as
a custom session) whose token runs out and is refreshed; the sign-in page in headless Chromium,
keyboard only, with its accessibility basics; and a red-team pass of the page: open
redirects, login CSRF, brute force, framing."""
import os
import re
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.auth import EsriOAuth2Auth, EsriPKCEAuth, EsriSession  # noqa: E402
from arcgis.features import FeatureLayer  # noqa: E402
from arcgis.gis import GIS  # noqa: E402

from conftest import needs_chromium  # noqa: E402
from oauth_clients_support import (  # noqa: E402,F401
    CLIENT_EXPIRY_MARGIN, PASSWORD, PKCE_TOKEN_MINUTES, TREES, accessible_basics, authorize_url, browser_app, callback, chromium,
    native_app, pkce_pair, portal, press, sign_in_by_keyboard, tree_count, wait_for)
from oauth_support import browser, post, request_log  # noqa: E402

# The servers' certificates are self-signed.
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

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
