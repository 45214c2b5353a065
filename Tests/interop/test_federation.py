"""Federation and portal users over HTTP, as web clients meet them (docs/portal.md,
"Federation" and "Users"): a token from the portal's `generateToken` opens secured services;
the server-token exchange ArcGIS REST JS makes (`rest/info` → `owningSystemUrl` →
`sharing/rest/info` → `generateToken` with `token` and `serverUrl`) and the ArcGIS API for
Python's form of it (`request=getToken&serverURL=…`) answer a token the services take, and
another server (another scheme or port included) is refused one; every user object carries an
id, another member's is the public profile (no role or privileges), and the Maps SDK for
JavaScript's `PortalUser.addItem`, which posts to `content/users/<id>/addItem`, adds the
item for that user."""
import json
import os
import re
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import BINARY, on_backend, running_server

USERS = {"ada": "editor", "vic": "viewer"}
WEB_MAP = {"operationalLayers": [], "baseMap": {"baseMapLayers": [], "title": "none"}}


def add_users(data):
    for name, role in USERS.items():
        environment = {**os.environ, "OUTPOST_PASSWORD": f"{name}-password-1"}
        subprocess.run(on_backend([BINARY, "users", "add", name, "--role", role, "--data", data]), env=environment, check=True,
                       capture_output=True)


@pytest.fixture(scope="module")
def secured():
    data = tempfile.mkdtemp(prefix="outpost-federation-")
    add_users(data)
    with running_server(data, "--require-auth") as base:
        yield base


def call(url, form=None, headers=None):
    """The JSON answer of a GET, or of a form POST when `form` is given (errors included)."""
    body = urllib.parse.urlencode(form).encode() if form is not None else None
    request = urllib.request.Request(url, data=body, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return json.loads(error.read())


def sign_in(base, name):
    """The portal's generateToken, as clients sign in to a portal."""
    answer = call(f"{base}/sharing/rest/generateToken", {"username": name, "password": f"{name}-password-1", "client": "referer",
                                                         "referer": "http://localhost", "expiration": 60, "f": "json"})
    assert "token" in answer, answer
    return answer


def count_query(base, suffix=""):
    return f"{base}/rest/services/Demo/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json{suffix}"


def test_a_portal_token_opens_secured_services(secured):
    base = secured
    assert call(count_query(base))["error"]["code"] == 499
    token = sign_in(base, "ada")["token"]
    assert call(count_query(base, f"&token={token}")) == {"count": 243}
    assert call(count_query(base), headers={"X-Esri-Authorization": f"Bearer {token}"}) == {"count": 243}


def test_the_server_token_exchange_of_rest_js_and_the_python_api(secured):
    """ArcGISIdentityManager.getTokenForServer, step by step, then the Python API's form."""
    base = secured
    portal = f"{base}/sharing/rest"
    signed = sign_in(base, "ada")
    service = f"{base}/rest/services/Demo/FeatureServer/0"
    # getServerRootUrl: the URL before /rest/services.
    root = service.split("/rest/services")[0]
    info = call(f"{root}/rest/info?f=json")
    assert info["owningSystemUrl"] == base, info
    assert info["authInfo"] == {"isTokenBasedSecurity": True, "tokenServicesUrl": f"{portal}/generateToken",
                                "shortLivedTokenValidity": 60}, info
    # isFederated: the owning system's URL, without its scheme, is found in the portal's.
    assert re.search(re.escape(info["owningSystemUrl"].split("://", 1)[1]), portal.split("://", 1)[1], re.I)
    token_service = call(f"{info['owningSystemUrl']}/sharing/rest/info?f=json")["authInfo"]["tokenServicesUrl"]
    assert token_service == f"{portal}/generateToken"
    exchanged = call(token_service, {"token": signed["token"], "serverUrl": root, "expiration": 20160, "f": "json"})
    # The portal's token is the server's: the same token, expiring when it does; served over
    # plain HTTP, it need not be sent over HTTPS only.
    assert exchanged["token"] == signed["token"] and exchanged["expires"] == signed["expires"], exchanged
    assert exchanged["ssl"] is False and signed["ssl"] is False, (exchanged, signed)
    assert call(count_query(base, f"&token={exchanged['token']}")) == {"count": 243}

    # The ArcGIS API for Python (PKI, IWA and other web-tier sign-ins): request=getToken, serverURL.
    python = call(token_service, {"request": "getToken", "serverURL": root, "token": signed["token"], "referer": "http",
                                  "expiration": 16000, "f": "json"})
    assert python.get("token") == signed["token"], python

    # Only this server: another one claiming this portal gets nothing.
    address = urllib.parse.urlsplit(base)
    for elsewhere in ("https://elsewhere.example/arcgis", "http://127.0.0.1.example/arcgis", "javascript:alert(1)",
                      f"https://{address.netloc}/arcgis", f"http://{address.hostname}/arcgis", f"http://{address.hostname}:443/arcgis"):
        refused = call(token_service, {"token": signed["token"], "serverUrl": elsewhere, "f": "json"})
        assert "token" not in refused and refused["error"]["code"] == 400, refused
        assert "Unable to generate token for this server" in " ".join(refused["error"]["details"]), refused
    # A token that is not one is refused as invalid, whatever the server.
    assert call(token_service, {"token": "0" * 64, "serverUrl": root, "f": "json"})["error"]["code"] == 498


def test_every_user_object_has_an_id_and_the_sdk_adds_items_at_its_content_url(secured):
    base = secured
    portal = f"{base}/sharing/rest"
    token = sign_in(base, "ada")["token"]
    organization = call(f"{portal}/portals/self?f=json&token={token}")
    me = organization["user"]
    assert re.fullmatch("[0-9a-f]{32}", me["id"]), me
    assert (me["username"], me["role"], me["roleId"], me["orgId"], me["provider"]) == (
        "ada", "org_publisher", "org_publisher", organization["id"], "arcgis"), me
    assert "portal:user:createItem" in me["privileges"] and me["created"] > 0, me
    assert call(f"{portal}/community/self?f=json&token={token}")["id"] == me["id"]
    vic = call(f"{portal}/community/users/vic?f=json&token={token}")
    assert re.fullmatch("[0-9a-f]{32}", vic["id"]) and vic["id"] != me["id"] and vic["username"] == "vic", vic
    # Another member's object is the public profile: ArcGIS answers the rest only to the user
    # and administrators.
    assert not {"role", "roleId", "privileges", "level", "userLicenseTypeId", "groups"} & vic.keys(), vic

    # PortalUser (Maps SDK for JavaScript 4.3x): url = community/users/<id>,
    # userContentUrl = content/users/<id>; addItem posts to <userContentUrl>/addItem.
    assert call(f"{portal}/community/users/{me['id']}?f=json&token={token}")["username"] == "ada"
    added = call(f"{portal}/content/users/{me['id']}/addItem",
                 {"f": "json", "token": token, "type": "Web Map", "title": "Added by id", "text": json.dumps(WEB_MAP)})
    assert added["success"] is True, added
    assert call(f"{portal}/content/items/{added['id']}?f=json&token={token}")["owner"] == "ada"
    listed = call(f"{portal}/content/users/{me['id']}?f=json&token={token}")
    assert listed["username"] == "ada" and added["id"] in [item["id"] for item in listed["items"]], listed
    # Older SDKs (and every other client) use the user name: the same place.
    by_name = call(f"{portal}/content/users/ada/addItem",
                   {"f": "json", "token": token, "type": "Web Map", "title": "Added by name", "text": json.dumps(WEB_MAP)})
    assert by_name["success"] is True, by_name
    # Another user's id is another user's content: an editor may not add there.
    refused = call(f"{portal}/content/users/{vic['id']}/addItem",
                   {"f": "json", "token": token, "type": "Web Map", "title": "Not mine", "text": json.dumps(WEB_MAP)})
    assert refused["error"]["code"] == 403, refused


def test_user_ids_stay_across_restarts():
    data = tempfile.mkdtemp(prefix="outpost-federation-ids-")
    add_users(data)
    ids = []
    for _ in range(2):
        with running_server(data, "--require-auth") as base:
            token = sign_in(base, "vic")["token"]
            ids.append({name: call(f"{base}/sharing/rest/community/users/{name}?f=json&token={token}")["id"] for name in USERS})
    assert ids[0] == ids[1] and len(set(ids[0].values())) == len(USERS), ids
