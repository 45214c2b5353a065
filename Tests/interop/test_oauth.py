"""Signing in through the portal's OAuth 2.0 with real clients (docs/identity.md, issue 46):
the ArcGIS API for Python's built-in sign-in (`GIS(url, user, password)`, the implicit flow
with `pythonapi`), a registered app's authorization code flow with PKCE driven by
requests-oauthlib as a browser would (cookies kept), refresh and exchange of refresh tokens, revocation,
`client_credentials`, and the refusals that must issue nothing."""
import json
import os
import subprocess
import tempfile
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.auth import EsriBuiltInAuth  # noqa: E402
from arcgis.auth._error import ArcGISLoginError  # noqa: E402
from arcgis.features import FeatureLayer  # noqa: E402
from arcgis.gis import GIS  # noqa: E402
from oauthlib.oauth2 import BackendApplicationClient  # noqa: E402
from requests_oauthlib import OAuth2Session  # noqa: E402

from oauth_support import browser, generated_token, oauth_info, post, request_log, unverified  # noqa: E402
from conftest import BINARY, on_backend, running_server  # noqa: E402

# The servers' certificates are self-signed.
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

PASSWORD = "alice-password-1"
CALLBACK = "https://app.example/callback"
TREES = "rest/services/Demo/FeatureServer/2"


@pytest.fixture(scope="module")
def portal():
    """One HTTPS server with token security for the module, and alice, an editor."""
    data = tempfile.mkdtemp(prefix="outpost-oauth-")
    added = subprocess.run(on_backend([BINARY, "users", "add", "alice", "--role", "editor", "--data", data]),
                           env={**os.environ, "OUTPOST_PASSWORD": PASSWORD}, capture_output=True, text=True)
    assert added.returncode == 0, added.stderr
    with running_server(data, "--require-auth", tls=True) as base:
        yield base, os.path.join(data, "server.log")


@pytest.fixture(scope="module")
def app(portal):
    """A browser app alice registers: an `Application` item, then `oauth2/registerApp`."""
    base, _ = portal
    token = generated_token(base, "alice", PASSWORD)
    added = post(f"{base}/sharing/rest/content/users/alice/addItem", token=token, type="Application", title="Field app")
    assert added.get("success") is True, added
    registered = post(f"{base}/sharing/rest/oauth2/registerApp", token=token, itemId=added["id"], appType="browser",
                      redirect_uris=json.dumps([CALLBACK]))
    assert registered.get("client_id") and registered.get("client_secret"), registered
    assert registered["redirect_uris"] == [CALLBACK] and registered["itemId"] == added["id"]
    return registered














def refused(answer, oauth_error):
    """An ArcGIS envelope carrying OAuth's error, and nothing issued."""
    body = answer.json()
    assert body.get("error", {}).get("code") == 400 and body["error"].get("error") == oauth_error, body
    assert "access_token" not in body and "refresh_token" not in body, body
    assert "Location" not in answer.headers


def refused_sign_in(answer, oauth_error):
    """A sign-in refused with nothing to go on (no redirect, no new state), naming OAuth's
    error: in the envelope, or on the page (400) in its `oAuthInfo`."""
    assert answer.status_code == 400 and "Location" not in answer.headers, (answer.status_code, answer.headers)
    if not answer.headers.get("Content-Type", "").startswith("text/html"):
        return refused(answer, oauth_error)
    info = oauth_info(answer.text)
    assert info is not None and not info.get("oauth_state") and info.get("messages"), answer.text
    assert info.get("error") == oauth_error, info


def authorization(base, client_id, redirect_uri=CALLBACK):
    """The client's side: a session with a PKCE verifier and the authorization URL it builds."""
    oauth = unverified(OAuth2Session(client_id, redirect_uri=redirect_uri))
    verifier = oauth._client.create_code_verifier(64)
    challenge = oauth._client.create_code_challenge(verifier, "S256")
    url, state = oauth.authorization_url(f"{base}/sharing/rest/oauth2/authorize", code_challenge=challenge, code_challenge_method="S256")
    return oauth, verifier, url, state


def sign_in_page(page_browser, url):
    page = page_browser.get(url, timeout=60)
    assert page.status_code == 200, page.text
    info = oauth_info(page.text)
    assert info and info.get("oauth_state"), page.text
    return info["oauth_state"]


def signed_in_code(base, client_id):
    """Drives the authorization code flow as a browser to its redirect: the session, verifier and code."""
    oauth, verifier, url, state = authorization(base, client_id)
    page_browser = browser()
    oauth_state = sign_in_page(page_browser, url)
    answer = page_browser.post(f"{base}/sharing/oauth2/signin", data={"oauth_state": oauth_state, "username": "alice", "password": PASSWORD},
                               allow_redirects=False, timeout=60)
    assert answer.status_code == 302, answer.text
    location = urlsplit(answer.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == CALLBACK
    query = parse_qs(location.query)
    assert query["state"] == [state]
    return oauth, verifier, query["code"][0]


def signed_in(base, client_id):
    """A session holding tokens of a completed code flow."""
    oauth, verifier, code = signed_in_code(base, client_id)
    token = oauth.fetch_token(f"{base}/sharing/rest/oauth2/token", code=code, code_verifier=verifier, include_client_id=True)
    assert token["username"] == "alice" and token["access_token"] and token["refresh_token"], token
    return oauth, token


def tree_count(base, session):
    return session.get(f"{base}/{TREES}/query", params={"where": "1=1", "returnCountOnly": "true", "f": "json"}, timeout=60).json()


def test_the_python_api_signs_in_through_oauth_and_edits(portal):
    base, log = portal
    start = os.path.getsize(log)
    gis = GIS(base, "alice", PASSWORD, verify_cert=False)
    assert gis.users.me.username == "alice"
    # The built-in sign-in's implicit flow went through, without falling back to its
    # code-flow handshake (which sets `_oauth`) or to the `arcgisonline` client.
    auth = gis._con._session.auth
    assert isinstance(auth, EsriBuiltInAuth), auth
    assert auth._clientid == "pythonapi" and getattr(auth, "_oauth", None) is None
    assert auth._auth_token and auth._auth_token.get("access_token")

    species = f"OAuth {uuid.uuid4().hex[:8]}"
    result = FeatureLayer(f"{base}/{TREES}", gis=gis).edit_features(adds=[{"attributes": {"species": species}, "geometry": {"x": 13.3, "y": 52.5}}])
    assert result["addResults"][0]["success"], result

    # The token came from the sign-in form, not from the token service.
    requests_seen = request_log(log, start)
    paths = [line.get("path", "") for line in requests_seen]
    assert any(line.get("path") == "/arcgis/sharing/oauth2/signin" and line.get("status") == "302" for line in requests_seen), paths
    assert not any("generateToken" in path for path in paths), paths
    assert any(path.endswith("/FeatureServer/2/applyEdits") for path in paths), paths

    token = generated_token(base, "alice", PASSWORD)
    found = browser().get(f"{base}/{TREES}/query", params={"where": f"species = '{species}'", "returnCountOnly": "true", "f": "json", "token": token},
                          timeout=60).json()
    assert found == {"count": 1}

    start = os.path.getsize(log)
    # A wrong password: the page again with `OAUTH_0015`, which the API raises as a login
    # error carrying the page's messages (GIS wraps it in a plain Exception).
    with pytest.raises(Exception) as refusal:
        GIS(base, "alice", "not-the-password", verify_cert=False)
    chain, error = [], refusal.value
    while error is not None:
        chain.append(error)
        error = error.__cause__ or error.__context__
    assert any(isinstance(error, ArcGISLoginError) and "Invalid username or password" in str(error) for error in chain), chain
    attempts = request_log(log, start)
    assert any(line.get("path") == "/arcgis/sharing/oauth2/signin" and line.get("status") == "400" for line in attempts), attempts
    assert not any(line.get("path", "").endswith("/oauth2/token") for line in attempts), attempts


def test_authorization_code_with_pkce_refresh_and_revoke(portal, app):
    base, _ = portal
    client_id = app["client_id"]
    token_url = f"{base}/sharing/rest/oauth2/token"
    oauth, first = signed_in(base, client_id)
    assert isinstance(tree_count(base, oauth).get("count"), int)
    edits = oauth.post(f"{base}/{TREES}/applyEdits", data={"f": "json", "adds": json.dumps([{"attributes": {"species": "Code flow"},
                                                                                             "geometry": {"x": 13.4, "y": 52.5}}])}, timeout=60).json()
    assert edits["addResults"][0]["success"], edits

    # `refresh_token` as ArcGIS answers it: a new access token, and the refresh token stays
    # (requests-oauthlib keeps the one it has when the answer carries none).
    second = oauth.refresh_token(token_url, refresh_token=first["refresh_token"], client_id=client_id)
    assert second["access_token"] != first["access_token"] and second["refresh_token"] == first["refresh_token"], second
    assert isinstance(tree_count(base, oauth).get("count"), int)
    third_access = oauth.refresh_token(token_url, refresh_token=first["refresh_token"], client_id=client_id)
    assert third_access["access_token"] not in (first["access_token"], second["access_token"])
    # `exchange_refresh_token`: a successor, the old one spent; presented again it revokes the
    # successor too (the family).
    exchanged = browser().post(token_url, data={"grant_type": "exchange_refresh_token", "refresh_token": first["refresh_token"],
                                                "client_id": client_id, "f": "json"}, timeout=60).json()
    assert exchanged.get("refresh_token") not in (None, first["refresh_token"]), exchanged
    refused(browser().post(token_url, data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client_id, "f": "json"},
                           timeout=60), "invalid_grant")
    refused(browser().post(token_url, data={"grant_type": "refresh_token", "refresh_token": exchanged["refresh_token"], "client_id": client_id,
                                            "f": "json"}, timeout=60), "invalid_grant")

    # Revocation, on a sign-in of its own (untouched by the family revoked above).
    revoking, third = signed_in(base, client_id)
    assert isinstance(tree_count(base, revoking).get("count"), int)
    revoked = post(f"{base}/sharing/rest/oauth2/revokeToken", token=third["access_token"], client_id=client_id)
    assert revoked == {"success": True}
    assert tree_count(base, revoking).get("error", {}).get("code") == 498


def test_client_credentials_read_but_never_edit(portal, app):
    base, _ = portal
    service = unverified(OAuth2Session(client=BackendApplicationClient(client_id=app["client_id"])))
    token = service.fetch_token(f"{base}/sharing/rest/oauth2/token", client_secret=app["client_secret"], include_client_id=True)
    assert token["access_token"] and "refresh_token" not in token, token
    assert isinstance(tree_count(base, service).get("count"), int)
    edits = service.post(f"{base}/{TREES}/applyEdits", data={"f": "json", "adds": json.dumps([{"attributes": {"species": "App only"},
                                                                                               "geometry": {"x": 13.4, "y": 52.5}}])}, timeout=60).json()
    assert edits.get("error", {}).get("code") == 403, edits
    refused(browser().post(f"{base}/sharing/rest/oauth2/token", data={"grant_type": "client_credentials", "client_id": app["client_id"],
                                                                      "client_secret": "not-the-secret", "f": "json"}, timeout=60),
            "invalid_client")


def test_an_unregistered_redirect_uri_is_answered_on_the_page(portal, app):
    base, _ = portal
    _, _, url, _ = authorization(base, app["client_id"], redirect_uri="https://evil.example/callback")
    page = browser().get(url, allow_redirects=False, timeout=60)
    assert page.status_code == 400 and "Location" not in page.headers
    assert "Invalid redirect_uri" in page.text
    assert not (oauth_info(page.text) or {}).get("oauth_state"), page.text


def test_a_code_is_exchanged_once(portal, app):
    base, _ = portal
    oauth, verifier, code = signed_in_code(base, app["client_id"])
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "client_id": app["client_id"], "code_verifier": verifier, "f": "json"}
    first = browser().post(f"{base}/sharing/rest/oauth2/token", data=form, timeout=60).json()
    assert first.get("access_token"), first
    refused(browser().post(f"{base}/sharing/rest/oauth2/token", data=form, timeout=60), "invalid_grant")


def test_a_code_needs_its_verifier(portal, app):
    base, _ = portal
    oauth, verifier, code = signed_in_code(base, app["client_id"])
    other = oauth._client.create_code_verifier(64)
    assert other != verifier
    refused(browser().post(f"{base}/sharing/rest/oauth2/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK,
                                                                      "client_id": app["client_id"], "code_verifier": other, "f": "json"}, timeout=60),
            "invalid_grant")


def test_a_forged_sign_in_state_is_refused(portal, app):
    base, _ = portal
    _, _, url, _ = authorization(base, app["client_id"])
    page_browser = browser()
    state = sign_in_page(page_browser, url)
    middle = len(state) // 2
    forged = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1:]
    answer = page_browser.post(f"{base}/sharing/oauth2/signin", data={"oauth_state": forged, "username": "alice", "password": PASSWORD},
                               allow_redirects=False, timeout=60)
    refused_sign_in(answer, "invalid_request")


def test_a_sign_in_needs_the_cookie_of_its_page(portal, app):
    base, _ = portal
    _, _, url, _ = authorization(base, app["client_id"])
    attacker = browser()
    state = sign_in_page(attacker, url)
    assert attacker.cookies.get("outpost_signin")
    form = {"oauth_state": state, "username": "alice", "password": PASSWORD}
    # Without any cookie, and from a browser whose cookie another page view set.
    refused_sign_in(browser().post(f"{base}/sharing/oauth2/signin", data=form, allow_redirects=False, timeout=60), "invalid_request")
    victim = browser()
    sign_in_page(victim, url)
    refused_sign_in(victim.post(f"{base}/sharing/oauth2/signin", data=form, allow_redirects=False, timeout=60), "invalid_request")


def test_a_revoked_refresh_token_buys_nothing(portal, app):
    base, _ = portal
    _, token = signed_in(base, app["client_id"])
    assert post(f"{base}/sharing/rest/oauth2/revokeToken", token=token["refresh_token"], client_id=app["client_id"]) == {"success": True}
    refused(browser().post(f"{base}/sharing/rest/oauth2/token", data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"],
                                                                      "client_id": app["client_id"], "f": "json"}, timeout=60), "invalid_grant")
