"""API keys attacked from outside (red team, docs/identity.md, "API keys"): ways around a key's
scope found against a running server. Each test asserts the behaviour the design asks for, so
it fails while the hole is open. HTTPS with `--require-auth`, on either backend."""
import uuid

import pytest

from api_key_support import (CITIES, OOB, credentials, DATA, ITEM, PARCELS, WEB_MAP, add_item, app_info, call, count, denied, new_key, portal,  # noqa: F401
                             refused, service_item, sharing, token_of, users)

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

GOOD = "https://good.example/*"
WORLD = '{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}'


@pytest.fixture(scope="module")
def demo(portal):
    return f"{ITEM}{service_item(portal, token_of(portal, 'alice'), 'Demo')}"


def test_the_apps_secret_buys_no_token_beyond_the_apps_privileges(portal, demo):
    """`oauth2/token` with `grant_type=client_credentials` and no `apiToken` gives, for an app
    whose privileges name only the Demo service (and whose keys are bound to one page), a token
    of its owner that reads her private items and every service: the secret REST JS hands to a
    server to make scoped keys buys an unscoped one. Its token must reach no more than the
    app's keys do."""
    token = token_of(portal, "alice")
    private = add_item(portal, token, "alice", "Web Map", text=WEB_MAP)
    client_id, secret = credentials(portal, [demo], [GOOD])
    answer = sharing(portal, "oauth2/token", client_id=client_id, client_secret=secret, grant_type="client_credentials")
    app_token = answer.get("access_token")
    if not app_token:
        refused(answer)
        return
    for referer in (None, "https://good.example/page"):
        refused(call(portal, f"sharing/rest/content/items/{private}", token=app_token, referer=referer, method="GET")[1])
        refused(call(portal, f"sharing/rest/content/items/{private}/data", token=app_token, referer=referer, method="GET")[1])
        refused(call(portal, f"{PARCELS}/query", token=app_token, referer=referer, where="1=1", returnCountOnly="true")[1])


def replica_file(base, service, token, **fields):
    """A replica of `service` made by `token`'s user, its data left as a result file: the
    file's name (after `replicafiles/`)."""
    _, answer = call(base, f"rest/services/{service}/FeatureServer/createReplica", token=token, layers="0", returnAttachments="false",
                     dataFormat="json", replicaName=f"file {uuid.uuid4().hex[:6]}", geometry=WORLD, geometryType="esriGeometryEnvelope",
                     inSR="4326", transportType="esriTransportTypeUrl", **fields)
    url = answer.get("URL") or answer.get("responseUrl")
    assert url and "/replicafiles/" in url, answer
    return url.split("/replicafiles/")[-1]


def test_a_key_fetches_no_replica_file_of_another_service_through_its_own(portal, demo):
    """A key naming Demo only is refused Parcels' result files under Parcels, but the same
    file under `rest/services/Demo/replicafiles/` is served: the reach check takes the
    service from the path, the file is served by its owner alone, whatever service it is of."""
    _, _, key = new_key(portal, "alice", [demo])
    token = token_of(portal, "alice")
    parcels_file = replica_file(portal, "Parcels", token, syncModel="perReplica", syncDirection="bidirectional")
    denied(call(portal, f"rest/services/Parcels/replicafiles/{parcels_file}", key=key, method="GET"))
    _, answer = call(portal, f"rest/services/Demo/replicafiles/{parcels_file}", key=key, method="GET")
    refused(answer)
    assert "layers" not in (answer or {}) and "replicaID" not in (answer or {}), answer
    # Its owner still has it where it was made, and a Demo file is the key's.
    assert "error" not in call(portal, f"rest/services/Parcels/replicafiles/{parcels_file}", token=token, method="GET")[1]
    demo_file = replica_file(portal, "Demo", token, syncModel="perLayer")
    assert "error" not in call(portal, f"rest/services/Demo/replicafiles/{demo_file}", key=key, method="GET")[1]


@pytest.mark.parametrize("suffix", ["synchronizeReplica/", "synchronizeReplica//"])
def test_a_read_only_key_syncs_no_edits_up_however_the_path_ends(portal, demo, suffix):
    """A key without an edit privilege is refused a `synchronizeReplica` sending edits, but
    `synchronizeReplica/` (the route the router matches all the same) carries them into alice's
    bidirectional replica: the check reads the path's last characters, not the route."""
    _, _, key = new_key(portal, "alice", [demo])
    token = token_of(portal, "alice")
    _, replica = call(portal, "rest/services/Demo/FeatureServer/createReplica", token=token, layers="0", returnAttachments="false",
                      syncModel="perLayer", dataFormat="json", replicaName=f"trail {uuid.uuid4().hex[:6]}", geometry=WORLD,
                      geometryType="esriGeometryEnvelope", inSR="4326", transportType="esriTransportTypeEmbedded", syncDirection="bidirectional")
    assert replica.get("replicaID"), replica
    name = f"Trailing {uuid.uuid4().hex[:8]}"
    feature = {"attributes": {"name": name, "GlobalID": "{%s}" % str(uuid.uuid4()).upper()}, "geometry": {"x": 8.5, "y": 47.4}}
    _, answer = call(portal, f"rest/services/Demo/FeatureServer/{suffix}", key=key, replicaID=replica["replicaID"],
                     transportType="esriTransportTypeEmbedded", syncDirection="bidirectional",
                     syncLayers=[{"id": 0, "serverGen": replica["layerServerGens"][0]["serverGen"], "syncDirection": "bidirectional"}],
                     edits=[{"id": 0, "features": {"adds": [feature]}}])
    assert count(portal, CITIES, where=f"name = '{name}'", token=token) == 0, answer
    refused(answer)


@pytest.mark.parametrize("client_id", ["arcgisonline", "own app"])
def test_nobody_but_its_app_ends_a_key_by_revoke_token(portal, demo, client_id):
    """An API key is meant to sit in a web page (bound to it by `httpReferrers`), so anyone may
    read it; `oauth2/revokeToken` with the key as `token` and any client id (the built-in
    `arcgisonline`, or bob's own app), without credentials or `Referer`, ends it for its owner
    (RFC 7009, 2.1: the token must have been issued to the client revoking it). Keys end by
    their app (`resetApiKey`, `revokeToken` with `apiToken` and the secret, `unregister`)."""
    _, _, key = new_key(portal, "alice", [demo], referrers=[GOOD])
    page = "https://good.example/map"
    assert isinstance(count(portal, CITIES, key=key, referer=page), int)
    if client_id == "own app":
        bob = token_of(portal, "bob")
        item_id = add_item(portal, bob, "bob", "Application", tags="bob")
        client_id = sharing(portal, "oauth2/registerApp", token=bob, itemId=item_id, appType="multiple", redirect_uris=[OOB],
                            privileges=[])["client_id"]
    call(portal, "sharing/rest/oauth2/revokeToken", client_id=client_id, token=key)
    assert isinstance(count(portal, CITIES, key=key, referer=page), int), "the key was ended by someone else's revokeToken"


def test_a_privilege_naming_an_item_in_capitals_does_not_widen_the_key(portal, demo):
    """`PORTAL:APP:ACCESS:ITEM:<Demo>` is taken (it has the shape) but names no item, so the
    key names none and reaches every one of alice's private items instead of the one service
    meant: a key must never reach more than the items it was registered for. Either the
    privilege is refused (400) or it names the item as the lower-case one does."""
    token = token_of(portal, "alice")
    private = add_item(portal, token, "alice", "Web Map", text=WEB_MAP)
    item_id = add_item(portal, token, "alice", "API Key", tags="apikey")
    registered = sharing(portal, "oauth2/registerApp", token=token, itemId=item_id, appType="apikey", redirect_uris=[],
                         privileges=["PORTAL:APP:ACCESS:ITEM:" + demo[len(ITEM):]])
    if "error" in registered:
        refused(registered, 400)
        return
    key = app_info(portal, token, "alice", item_id)["apiKey"]
    refused(call(portal, f"sharing/rest/content/items/{private}", key=key, method="GET")[1])


def test_a_user_named_as_the_services_owner_gets_no_key_reaching_every_service(portal):
    """The services' portal items are owned by `outpost` (`ServiceItems.owner`), and a key naming
    no item reaches its owner's own items: so any key of a user an administrator named
    `outpost` (any case), even one whose only privilege is `premium:user:geocode`, reaches every
    service, which a key must name. (Either such a name is refused by `users add`, or the
    services' items are never a key owner's own.)"""
    password = "outpost-password-1"
    try:
        users(DATA[portal], "add", "OutPost", "--role", "editor", password=password)
    except AssertionError:
        return  # the name is reserved: nothing to attack
    _, _, key = new_key(portal, "OutPost", ["premium:user:geocode"], password=password)
    for layer in (CITIES, PARCELS):
        denied(call(portal, f"{layer}/query", key=key, where="1=1", returnCountOnly="true"))
