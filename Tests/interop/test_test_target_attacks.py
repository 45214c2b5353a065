"""Red team on `serve --test-target` (issue 47), from outside: who reaches `/_outpost`, what the
journal leaks, and what a web page on another origin can do. Each finding is a failing test whose
docstring says what is wrong; each defence verified is a short passing test. Servers are started
here (`--port 0 --ready-file`), on either backend (OUTPOST_INTEROP_BACKEND).
Resource bounds, faults, jobs, snapshots and the page: test_test_target_attacks2.py."""
import json
import subprocess
import urllib.parse

import pytest

from conftest import BINARY
from test_target_attack_support import PASSWORD, api_key, browser_app, signed_in_redirect, target

CONTROL_DATA = (b'"now"', b'"entries"', b'"rules"', b'"snapshots"', b'"held"', b'"count"', b'"matched"', b'"log"', b'"restored"')
# Spellings of control routes a router or a proxy might normalise onto /_outpost/….
VARIANTS = ["/_outpost/clock", "/_outpost/clock/", "/_outpost//clock", "//_outpost/clock", "/_OUTPOST/clock", "/_Outpost/journal",
            "/%5Foutpost/clock", "/_outpost%2Fclock", "/_outpost/%63lock", "/_outpost/./clock", "/x/../_outpost/clock",
            "/arcgis/../_outpost/clock", "/arcgis/%2e%2e/_outpost/clock", "/arcgis/rest/..%2F..%2F_outpost/clock",
            "/_outpost/journal", "/_outpost/journal/", "/_outpost/journal/har", "/_outpost/journal/count", "/_outpost/journal/verify",
            "/_outpost/faults", "/_outpost/jobs", "/_outpost/snapshots", "/_outpost/reset", "/_outpost/clock/advance",
            "/_outpost/faults/clear", "/_outpost/snapshots/start/restore", "/_outpost/journal/clear"]
STATE_CHANGES = {"hours": "5", "rule": json.dumps({"reset": True}), "name": "intruder", "pattern": "{}", "atLeast": "0"}
QUERY = "/arcgis/rest/services/Demo/FeatureServer/2/query"


@pytest.fixture(scope="module", params=[False, True], ids=["http", "https"])
def secured(request):
    """A `--require-auth --test-target` server (plain HTTP and HTTPS), its users' tokens and an admin's API key."""
    with target(auth=True, tls=request.param) as t:
        t.tokens = {user: t.token(user) for user in ("root", "ed", "vic")}
        t.key = api_key(t, "root", ["premium:user:featureservice", "portal:user:viewOrgUsers", "portal:admin:viewUsers"])
        yield t


def attempts(t, credentials):
    """Every variant by every method with `credentials` (a form field or header): the answers."""
    answers = []
    for path in VARIANTS:
        for method in ("GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE"):
            fields = {"f": "json", **STATE_CHANGES, **credentials.get("form", {})}
            headers = credentials.get("headers", {})
            if method in ("POST", "PUT"):
                answer = t.raw(method, path, fields, headers=headers)
            else:
                answer = t.raw(method, path + "?" + urllib.parse.urlencode(fields), headers=headers)
            answers.append((method, path, *answer))
    return answers


def test_nobody_but_an_admin_reaches_the_control_api(secured):
    """Anonymous, viewer, editor and an admin's API key (docs/decisions.md: keys are refused), as
    a form token and as headers, on every spelling and method: no control data comes back and
    nothing changes (the clock, the rules, the snapshots, the journal)."""
    t, tokens = secured, secured.tokens
    callers = {"anonymous": {}, "viewer": {"form": {"token": tokens["vic"]}},
               "editor": {"headers": {"X-Esri-Authorization": f"Bearer {tokens['ed']}"}},
               "editor-bearer": {"headers": {"Authorization": f"Bearer {tokens['ed']}"}},
               "admin-key": {"headers": {"X-Esri-Authorization": f"Bearer {t.key}"}}, "admin-key-form": {"form": {"token": t.key}}}
    for name, credentials in callers.items():
        for method, path, status, headers, body in attempts(t, credentials):
            assert not any(key in body for key in CONTROL_DATA), (name, method, path, status, body[:200])
            assert status in (200, 204, 400, 401, 403, 404, 405, 499) and b"<script" not in body.lower() or path.rstrip("/") == "/_outpost", \
                (name, method, path, status, body[:200])
    admin = tokens["root"]
    assert t.json("GET", "/_outpost/clock", token=admin)[1]["offset"] == 0
    assert t.json("GET", "/_outpost/faults", token=admin)[1]["rules"] == []
    assert [s["name"] for s in t.json("GET", "/_outpost/snapshots", token=admin)[1]["snapshots"]] == ["start"]
    # The admin's own token (form and header) does work: the check above was not vacuous.
    assert t.json("GET", "/_outpost/journal/count", token=admin)[1]["count"] > 0
    status, _, body = t.raw("GET", "/_outpost/clock?f=json", headers={"X-Esri-Authorization": f"Bearer {admin}"})
    assert b'"now"' in body


def test_without_test_target_no_spelling_reaches_anything():
    with target(test_target=False) as t:
        for method, path, status, _, body in attempts(t, {}):
            assert status in (400, 404, 405) or (method in ("OPTIONS", "HEAD") and not body) or b'"error"' in body, \
                (method, path, status, body[:200])
            assert not any(key in body for key in CONTROL_DATA), (method, path, body[:200])


def everything_kept(t, admin):
    """The journal as an admin sees it in every form: list, HAR, and `outpost test journal`."""
    listed = t.json("GET", "/_outpost/journal", {"limit": "10000"}, token=admin)[1]
    har = t.json("GET", "/_outpost/journal/har", token=admin)[1]
    printed = subprocess.run([BINARY, "test", "journal", "--url", t.url, "--token", admin], capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0 or t.tls, printed.stderr
    return json.dumps(listed), json.dumps(har), printed.stdout


@pytest.fixture(scope="module")
def oauth_flow(secured):
    """An authorization-code sign-in with PKCE-style extras and a refresh, by the editor."""
    t = secured
    callback = "http://127.0.0.1:9/callback"
    app = browser_app(t, "ed", callback)
    location = signed_in_redirect(t, app["client_id"], callback, "code", "ed")
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    verifier = "v" * 43 + "secretverifier"
    _, issued = t.json("POST", "/arcgis/sharing/rest/oauth2/token", {"client_id": app["client_id"], "client_secret": app["client_secret"],
                                                                     "grant_type": "authorization_code", "code": code,
                                                                     "redirect_uri": callback, "code_verifier": verifier})
    _, refreshed = t.json("POST", "/arcgis/sharing/rest/oauth2/token", {"client_id": app["client_id"], "grant_type": "refresh_token",
                                                                        "refresh_token": issued.get("refresh_token", "")})
    implicit = signed_in_redirect(t, app["client_id"], callback, "token", "ed")
    access = urllib.parse.parse_qs(urllib.parse.urlsplit(implicit).fragment)["access_token"][0]
    return {"code": code, "client_secret": app["client_secret"], "code_verifier": verifier, "access": issued.get("access_token"),
            "refresh": issued.get("refresh_token"), "refreshed": refreshed.get("access_token"), "implicit": access}


def test_secrets_in_query_form_and_credential_headers_are_masked(secured, oauth_flow):
    """Tokens as `token` (query and form), `X-Esri-Authorization`, `Authorization: Bearer`, a
    cookie, a multipart field; an upload's bytes; passwords to generateToken; OAuth's client_secret, code, code_verifier,
    refresh_token: in the list, the HAR's requests, `outpost test journal`; and `verify` is no
    oracle (a pattern with a real secret matches nothing)."""
    t, editor = secured, secured.tokens["ed"]
    t.json("GET", QUERY, {"where": "1=1", "returnCountOnly": "true"}, token=editor)
    t.json("POST", QUERY, {"where": "1=1", "returnCountOnly": "true", "Token": editor})
    t.raw("GET", QUERY + "?where=1%3D1&f=json", headers={"X-Esri-Authorization": f"Bearer {editor}"})
    t.raw("GET", QUERY + "?where=1%3D1&f=json", headers={"Authorization": f"Bearer {editor}", "Cookie": f"agwtoken={editor}"})
    t.raw("GET", f"/arcgis/rest/services?f=json&to%6Ben={editor}")
    boundary = "----attack47"
    parts = [("f", None, "json"), ("token", None, editor), ("attachment", "s.txt", "UPLOADED-CONTENT-47")]
    body = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"' + (f'; filename="{file}"' if file else "")
                   + f"\r\n\r\n{value}\r\n" for name, file, value in parts) + f"--{boundary}--\r\n"
    added = t.raw("POST", "/arcgis/rest/services/Demo/FeatureServer/0/1/addAttachment", body.encode(),
                  headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})[2]
    assert b'"success":true' in added, added
    admin = secured.tokens["root"]
    listed, har, printed = everything_kept(t, admin)
    requests = json.dumps([entry["request"] for entry in json.loads(har)["log"]["entries"]])
    secrets = {"editor token": editor, "password": PASSWORD, "upload": "UPLOADED-CONTENT-47", **{k: v for k, v in oauth_flow.items() if v}}
    for name, secret in secrets.items():
        for where, text in (("list", listed), ("har requests", requests), ("cli", printed)):
            assert secret not in text, f"{name} in the {where}"
    assert '"***"' in listed
    for pattern in ({"parameters": {"token": editor}}, {"parameters": {"password": PASSWORD}}, {"parameters": {"code": oauth_flow["code"]}}):
        answer = t.json("POST", "/_outpost/journal/verify", {"pattern": json.dumps(pattern), "atLeast": "1"}, token=admin)[1]
        assert answer.get("matched") == 0, (pattern, answer)


def test_a_token_in_the_referer_is_masked_in_the_har(secured):
    """FINDING (high): the HAR keeps every request header but four verbatim. A web app opened as
    `https://app/?token=…` (as the control page itself is opened, and as ArcGIS apps pass
    tokens) sends that URL as `Referer` on each request, so the HAR, which developers attach to
    bug reports and CI artefacts, carries a live token. The query is masked, the Referer is not."""
    t = secured
    viewer = t.token("vic")
    t.raw("GET", QUERY + "?where=1%3D1&returnCountOnly=true&f=json", headers={"Referer": f"https://app.example/map.html?token={viewer}"})
    _, har, _ = everything_kept(t, secured.tokens["root"])
    assert viewer not in har, "a live token in the HAR's Referer header"


def test_oauth_redirects_are_masked_in_the_har(secured, oauth_flow):
    """FINDING (high): the sign-in page's 302 `Location` (response header, kept in the HAR) holds
    the authorization code (`?code=`) and, for response_type=token, the access token itself
    (`#access_token=`). The `code` parameter is masked in requests, yet the same code, and a
    token good for an hour, are in the HAR in clear."""
    _, har, _ = everything_kept(secured, secured.tokens["root"])
    assert oauth_flow["implicit"] not in har, "an access token in the HAR (Location of the implicit sign-in)"
    assert oauth_flow["code"] not in har, "an authorization code in the HAR (Location of the sign-in)"


def test_other_credential_headers_are_masked(secured):
    """FINDING (low): `Proxy-Authorization` (Basic: a user's password in base64) and `X-API-Key`
    are kept verbatim in the HAR: only four header names are masked, by exact name."""
    t = secured
    basic = "Basic cm9vdDpBdHRhY2stcGFzcy00NyE="
    t.raw("GET", "/arcgis/rest/info?f=json", headers={"Proxy-Authorization": basic, "X-API-Key": "AAPKsecretkey47"})
    _, har, _ = everything_kept(t, secured.tokens["root"])
    assert basic not in har and "AAPKsecretkey47" not in har


def test_a_foreign_web_page_cannot_read_the_journal_or_drive_the_control_api():
    """FINDING (medium): without `--require-auth` (the usual way to run a test target) the control
    API answers any Origin, even `null`, with `Access-Control-Allow-Origin: <that origin>` and
    credentials, and acts on cross-site POSTs. Any web page the developer opens while tests run
    can read the journal (every request of the app under test: its edits, users' data) and reset
    the data, move the clock or plant faults (a plain form POST needs no preflight). The Host is not
    checked either, so DNS rebinding reaches it too. The /arcgis routes are the project's CORS
    policy; the control API should answer only its own page (same origin) or loopback origins."""
    with target() as t:
        t.json("GET", QUERY, {"where": "1=1", "returnCountOnly": "true"})
        for origin in ("https://evil.example", "null"):
            _, headers, body = t.raw("GET", "/_outpost/journal?f=json", headers={"Origin": origin})
            assert headers.get("access-control-allow-origin") not in (origin, "*") or b'"entries"' not in body, origin
            _, preflight, _ = t.raw("OPTIONS", "/_outpost/reset", headers={"Origin": origin, "Access-Control-Request-Method": "POST"})
            assert preflight.get("access-control-allow-origin") not in (origin, "*"), origin
            t.raw("POST", "/_outpost/clock/advance", b"hours=5&f=json", headers={"Origin": origin, "Content-Type": "application/x-www-form-urlencoded"})
        assert t.control("clock")["offset"] == 0, "a cross-site form moved the clock"
        # DNS rebinding: the page's name resolves here and is its own origin, but the Host gives it away.
        for host in ("rebound.example", f"rebound.example:{t.port}"):
            status, _, body = t.raw("GET", "/_outpost/clock?f=json", headers={"Host": host})
            assert status == 403 and b'"now"' not in body, (host, status, body[:200])


def test_a_token_minted_while_the_clock_is_far_ahead_does_not_outlive_the_test():
    """FINDING (medium): a token issued while the test clock reads year 9999 expires in 9999. Once
    the clock is reset it stays valid for ~8,000 years, and it is still accepted after the same
    data is served again WITHOUT `--test-target`: a test target leaves a never-expiring token in
    the data (only `POST /_outpost/reset` happens to remove it)."""
    with target(auth=True) as t:
        data = t.data
        t.control("clock/set", token=t.token("root"), time="253402300799000")
        future = t.token("ed")
        assert t.control("clock/reset", token=t.token("root"))["offset"] == 0
        still = t.json("GET", QUERY, {"where": "1=1", "returnCountOnly": "true"}, token=future)[1]
    with target(auth=True, test_target=False, data=data) as served:
        answer = served.json("GET", QUERY, {"where": "1=1", "returnCountOnly": "true"}, token=future)[1]
        assert "count" not in answer, f"a year-9999 token works on the real server: {answer} (and after the clock reset: {still})"
