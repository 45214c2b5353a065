"""What the API key interop tests share (test_api_keys.py, test_api_key_credentials.py,
test_api_key_attacks.py): one HTTPS portal with token security and two editors, alice and bob;
requests as a client sends them (a key as `X-Esri-Authorization: Bearer`, or `token`); the
Python API's create-a-key steps over plain HTTP; what "refused" and "data" look like."""
import json
import os
import subprocess
import tempfile
import uuid

import pytest

from conftest import BINARY, on_backend, running_server
from oauth_support import browser, generated_token

PASSWORDS = {"alice": "alice-password-1", "bob": "bob-password-1"}
CITIES = "rest/services/Demo/FeatureServer/0"
TREES = "rest/services/Demo/FeatureServer/2"
PARCELS = "rest/services/Parcels/FeatureServer/0"
EDIT = "features:user:edit"
ITEM = "portal:app:access:item:"
DENIED = "Token is valid but access is denied."
OOB = "urn:ietf:wg:oauth:2.0:oob"
# Each module portal's data folder, by its base URL (users are added and removed there).
DATA = {}
WEB_MAP = '{"operationalLayers": [], "baseMap": {"baseMapLayers": [], "title": "None"}}'


@pytest.fixture(scope="module")
def portal():
    """One HTTPS server with token security for the module; alice and bob are editors."""
    data = tempfile.mkdtemp(prefix="outpost-apikeys-")
    for name, password in PASSWORDS.items():
        users(data, "add", name, "--role", "editor", password=password)
    with running_server(data, "--require-auth", tls=True) as base:
        DATA[base] = data
        yield base


def users(data, *arguments, password=None):
    """`outpost users …` on a portal's data folder (the server running or not)."""
    done = subprocess.run(on_backend([BINARY, "users", *arguments, "--data", data]), env={**os.environ, "OUTPOST_PASSWORD": password or ""},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def token_of(base, user, password=None):
    return generated_token(base, user, password or PASSWORDS[user])


def encoded(fields):
    """A form as the clients send one: lists and dictionaries as JSON."""
    return {k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in fields.items() if v is not None}


def call(base, path, key=None, token=None, referer=None, origin=None, method="POST", **fields):
    """`path` under `base` with a key in the header (as the API for Python sends it) or a
    token in the form; the HTTP status and the JSON answer (None when not JSON)."""
    headers = {}
    if key:
        headers["X-Esri-Authorization"] = f"Bearer {key}"
    if referer:
        headers["Referer"] = referer
    if origin:
        headers["Origin"] = origin
    form = encoded({"f": "json", **({"token": token} if token else {}), **fields})
    session = browser()
    url = f"{base}/{path}"
    answer = session.post(url, data=form, headers=headers, timeout=60) if method == "POST" else session.get(url, params=form, headers=headers, timeout=60)
    try:
        return answer.status_code, answer.json()
    except ValueError:
        return answer.status_code, None


def sharing(base, path, **arguments):
    return call(base, f"sharing/rest/{path}", **arguments)[1]


def count(base, layer, where="1=1", **credentials):
    """`returnCountOnly` of a layer: the count, or the answer when it is not one."""
    _, answer = call(base, f"{layer}/query", where=where, returnCountOnly="true", **credentials)
    return answer.get("count", answer) if isinstance(answer, dict) else answer


def error_code(answer):
    return (answer or {}).get("error", {}).get("code") if isinstance(answer, dict) else None


def holds_data(answer):
    """Whether an answer carries anything a refusal must not: features, a count, items, a key."""
    if not isinstance(answer, dict):
        return answer not in (None, "")
    if "error" in answer:
        return False
    return bool(set(answer) & {"features", "count", "results", "apiKey", "client_secret", "layers", "services", "id", "items",
                               "addResults", "folders", "apiKeys"})


def refused(answer, *codes):
    """An ArcGIS error envelope carrying none of the data asked for (with `codes`: one of them)."""
    assert isinstance(answer, dict) and "error" in answer, answer
    assert not holds_data(answer), answer
    if codes:
        assert error_code(answer) in codes, answer


def denied(status_answer):
    """Refused to a key as such: 403 "Token is valid but access is denied."."""
    status, answer = status_answer
    refused(answer, 403)
    assert answer["error"].get("message") == DENIED, answer
    return answer


def service_item(base, token, name, item_type="Feature Service"):
    """A service's portal item as a client finds it: by searching for its title."""
    found = sharing(base, "search", token=token, method="GET", q=name, num=100)
    ids = [item["id"] for item in found.get("results", []) if item.get("title") == name and item.get("type") == item_type]
    assert len(ids) == 1, found
    return ids[0]


def add_item(base, token, owner, item_type, title=None, **fields):
    added = sharing(base, f"content/users/{owner}/addItem", token=token, type=item_type, title=title or f"{item_type} {uuid.uuid4().hex[:6]}", **fields)
    assert added.get("success") is True and added.get("id"), added
    return added["id"]


def app_info(base, token, owner, item_id):
    return sharing(base, f"content/users/{owner}/items/{item_id}/registeredAppInfo", token=token)


def new_key(base, owner, privileges, referrers=None, password=None):
    """`gis.api_keys.create` over HTTP: an `API Key` item, `registerApp` with `appType=apikey`;
    the item, the app (`registeredAppInfo`) and its key."""
    token = token_of(base, owner, password)
    item_id = add_item(base, token, owner, "API Key", tags="apikey")
    registered = sharing(base, "oauth2/registerApp", token=token, itemId=item_id, appType="apikey", redirect_uris=[], privileges=privileges,
                         httpReferrers=referrers)
    assert registered.get("client_id"), registered
    info = app_info(base, token, owner, item_id)
    assert str(info.get("apiKey", "")).startswith("AAPK"), info
    return item_id, info, info["apiKey"]


def credentials(base, privileges, referrers=()):
    """An app as ArcGIS REST JS's `createApiKey` registers one (an `Application` item,
    `appType=multiple`), alice's; its id and secret as `registeredAppInfo` shows them."""
    token = token_of(base, "alice")
    item_id = add_item(base, token, "alice", "Application", tags="rest-js")
    registered = sharing(base, "oauth2/registerApp", token=token, itemId=item_id, appType="multiple", redirect_uris=[OOB],
                         privileges=privileges, httpReferrers=list(referrers))
    assert registered.get("client_id"), registered
    info = app_info(base, token, "alice", item_id)
    assert info.get("client_secret"), info
    return info["client_id"], info["client_secret"]
