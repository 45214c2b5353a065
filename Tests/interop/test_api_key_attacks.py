"""API keys attacked (docs/identity.md, "API keys"): a key presented where keys are refused as
such (portal changes, app registration, the services directory, geoprocessing), another user's
private item by id and in search, every new endpoint without credentials, forged tokens of the
right shape, `httpReferrers` with a wrong, missing and right `Referer`, and the ArcGIS API for
Python's retry without the key, which must not turn a refusal into data. HTTPS with
`--require-auth`, on either backend."""
import secrets
import uuid

import pytest

from api_key_support import (CITIES, DATA, DENIED, EDIT, ITEM, PARCELS, WEB_MAP, add_item, app_info, call, count, denied, holds_data,  # noqa: F401
                             new_key, portal, refused, service_item, sharing, token_of, users)

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

PACKAGING = "rest/services/System/OfflinePackaging/GPServer"
GOOD = "https://good.example/*"


@pytest.fixture(scope="module")
def demo(portal):
    return f"{ITEM}{service_item(portal, token_of(portal, 'alice'), 'Demo')}"


@pytest.fixture(scope="module")
def alices_key(portal, demo):
    """An editing key of alice's naming the Demo service."""
    return new_key(portal, "alice", [demo, EDIT])


def test_a_key_changes_no_portal_content_and_registers_nothing(portal, alices_key):
    item_id, info, key = alices_key
    token = token_of(portal, "alice")
    target = add_item(portal, token, "alice", "Web Map", text=WEB_MAP)
    refusals = {
        "addItem": ("sharing/rest/content/users/alice/addItem", {"type": "Web Map", "title": "By key", "text": WEB_MAP}),
        "updateItem": (f"sharing/rest/content/users/alice/items/{target}/update", {"title": "Renamed by key"}),
        "share": (f"sharing/rest/content/users/alice/items/{target}/share", {"everyone": "true", "org": "true"}),
        "delete": (f"sharing/rest/content/users/alice/items/{target}/delete", {}),
        "registerApp": ("sharing/rest/oauth2/registerApp", {"itemId": target, "appType": "apikey", "redirect_uris": []}),
        "resetApiKey": (f"sharing/rest/oauth2/apps/{info['client_id']}/resetApiKey", {}),
        "update app": (f"sharing/rest/oauth2/apps/{info['client_id']}/update", {"privileges": [EDIT]}),
        "unregister": (f"sharing/rest/oauth2/apps/{info['client_id']}/unregister", {}),
        "services directory": ("rest/services", {"method": "GET"}),
        "GPServer": (PACKAGING, {"method": "GET"}),
        "submitJob": (f"{PACKAGING}/CreateMapArea/submitJob", {"mapItemId": target}),
    }
    for name, (path, fields) in refusals.items():
        status, answer = call(portal, path, key=key, **fields)
        assert error_message(answer) == DENIED and answer["error"]["code"] == 403, (name, status, answer)
        assert not holds_data(answer), (name, answer)
    # Nothing changed: the item is alice's, private, titled as made; the key's app as registered.
    item = sharing(portal, f"content/items/{target}", token=token)
    assert item["access"] == "private" and not item["title"].endswith("by key"), item
    assert app_info(portal, token, "alice", item_id)["apiKey"] == key
    assert app_info(portal, token, "alice", target).get("client_id") is None


def error_message(answer):
    return (answer or {}).get("error", {}).get("message") if isinstance(answer, dict) else None


def test_a_key_reads_no_folders_keys_or_other_users_items(portal, alices_key):
    _, _, key = alices_key
    bob = token_of(portal, "bob")
    title = f"Bob private {uuid.uuid4().hex[:8]}"
    bobs = add_item(portal, bob, "bob", "Web Map", title=title, text=WEB_MAP)
    refused(sharing(portal, f"content/items/{bobs}", key=key))
    refused(sharing(portal, f"content/items/{bobs}/data", key=key, method="GET"))
    found = sharing(portal, "search", key=key, method="GET", q=title)
    assert bobs not in str(found), found
    folder = f"Bob folder {uuid.uuid4().hex[:8]}"
    assert sharing(portal, "content/users/bob/createFolder", token=bob, title=folder).get("success") is True
    # Another user's folders and the keys' list: refused to keys as such; bob's app: missing.
    for path, codes in (("content/users/bob", (403,)), ("portals/self/apiKeys", (403,)), (f"content/users/bob/items/{bobs}/registeredAppInfo", ())):
        answer = sharing(portal, path, key=key, method="GET")
        assert folder not in str(answer) and bobs not in str(answer), (path, answer)
        refused(answer, *codes)
    # Naming bob's private item is refused when the key is made.
    alice = token_of(portal, "alice")
    holder = add_item(portal, alice, "alice", "API Key")
    refused(sharing(portal, "oauth2/registerApp", token=alice, itemId=holder, appType="apikey", redirect_uris=[],
                    privileges=[f"{ITEM}{bobs}"]), 400)


def test_a_key_naming_no_item_reaches_its_owners_items_only(portal):
    alice = token_of(portal, "alice")
    own = add_item(portal, alice, "alice", "Web Map", text=WEB_MAP)
    _, _, key = new_key(portal, "alice", [EDIT])
    assert sharing(portal, f"content/items/{own}", key=key)["id"] == own
    # The Demo service is shared with the organisation, not alice's: out of reach.
    refused(call(portal, f"{CITIES}/query", key=key, where="1=1", returnCountOnly="true")[1])


def test_the_new_endpoints_answer_no_one_without_credentials(portal, alices_key):
    item_id, info, key = alices_key
    client = info["client_id"]
    anonymous = {
        "portals/self/apiKeys": {},
        "oauth2/validateApiKey": {"key": key, "privilege": EDIT},
        f"oauth2/apps/{client}/resetApiKey": {},
        f"oauth2/apps/{client}/update": {"privileges": [EDIT]},
        f"oauth2/apps/{client}/unregister": {},
        f"content/users/alice/items/{item_id}/registeredAppInfo": {},
        "oauth2/registerApp": {"itemId": item_id, "appType": "apikey"},
    }
    for path, fields in anonymous.items():
        answer = sharing(portal, path, **fields)
        refused(answer)
        assert key not in str(answer) and info["client_secret"] not in str(answer), (path, answer)
    # A slot asked for with no secret, or a wrong one.
    for secret in (None, "not-the-secret"):
        refused(sharing(portal, "oauth2/token", client_id=client, client_secret=secret, apiToken=1, grant_type="client_credentials"))
    assert isinstance(count(portal, CITIES, key=key), int)


def forged(prefix, slot):
    return f"{prefix}{secrets.token_hex(32)}{slot}{secrets.token_hex(5)[:9]}"


def test_forged_keys_of_the_right_shape_are_invalid(portal, alices_key):
    _, _, key = alices_key
    fakes = [forged("AAPK", 0), forged("AAPT", 1), forged("AAPT", 2), key[:-1] + ("0" if key[-1] != "0" else "1"),
             key[:20] + ("a" if key[20] != "a" else "b") + key[21:], key.upper(), key + "0"]
    for fake in fakes:
        assert fake != key
        for credentials in ({"key": fake}, {"token": fake}):
            refused(call(portal, f"{CITIES}/query", where="1=1", returnCountOnly="true", **credentials)[1], 498)
    assert isinstance(count(portal, CITIES, key=key), int)


def test_http_referrers_bind_a_key_to_its_pages(portal, demo):
    _, _, key = new_key(portal, "alice", [demo], referrers=[GOOD])
    query = {"where": "1=1", "returnCountOnly": "true"}
    for referer in ("https://evil.example/", "https://good.example.evil.example/page", "http://good.example/page", None):
        denied(call(portal, f"{CITIES}/query", key=key, referer=referer, **query))
    for referer in ("https://good.example/app/index.html", "HTTPS://GOOD.EXAMPLE/app"):
        assert isinstance(call(portal, f"{CITIES}/query", key=key, referer=referer, **query)[1].get("count"), int), referer


def test_an_origin_stands_in_for_a_missing_referer(portal, demo):
    # A page whose policy sends no Referer still sends its Origin (no path): that of a page
    # the key is bound to is the page's site, and it passes; another site's does not.
    _, _, key = new_key(portal, "alice", [demo], referrers=[GOOD])
    query = {"where": "1=1", "returnCountOnly": "true"}
    denied(call(portal, f"{CITIES}/query", key=key, origin="https://evil.example", **query))
    answer = call(portal, f"{CITIES}/query", key=key, origin="https://good.example", **query)[1]
    assert isinstance(answer.get("count"), int), answer


def test_the_python_apis_retry_without_the_key_gets_no_data(portal, demo):
    arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
    from arcgis.features import FeatureLayer
    from arcgis.gis import GIS

    _, _, bound = new_key(portal, "alice", [demo], referrers=[GOOD])
    _, _, narrow = new_key(portal, "alice", [f"{ITEM}{service_item(portal, token_of(portal, 'alice'), 'Parcels')}"])
    assert arcgis
    cases = [(bound, "https://evil.example/"), (narrow, "https://good.example/app")]
    for key, referer in cases:
        gis = GIS(portal, api_key=key, referer=referer, verify_cert=False)
        try:
            answer = gis._con.get(f"{portal}/{CITIES}/query", {"where": "1=1", "returnCountOnly": "true", "f": "json"})
        except Exception as error:  # the API raises the server's error after its retry
            answer = {"error": str(error)}
        assert not holds_data(answer), (key[:8], answer)
        try:
            counted = FeatureLayer(f"{portal}/{CITIES}", gis=gis).query(where="1=1", return_count_only=True)
        except Exception as error:
            counted = error
        assert not isinstance(counted, int), counted
    # The bound key from its page: data.
    good = GIS(portal, api_key=bound, referer="https://good.example/app", verify_cert=False)
    assert isinstance(FeatureLayer(f"{portal}/{CITIES}", gis=good).query(where="1=1", return_count_only=True), int)


def test_a_key_reaches_no_service_it_does_not_name_however_spelled(portal, demo):
    _, _, key = new_key(portal, "alice", [demo, EDIT])
    query = {"where": "1=1", "returnCountOnly": "true"}
    assert isinstance(count(portal, "rest/services/DEMO/FeatureServer/0", key=key), int)
    for path in (PARCELS, "rest/services/PARCELS/FeatureServer/0", "rest/services/Demo/../Parcels/FeatureServer/0",
                 "rest/services/Demo%2F..%2FParcels/FeatureServer/0", "rest/services/Parcels/FeatureServer"):
        denied(call(portal, f"{path}/query", key=key, **query))
    for path in ("rest/services/Parcels/FeatureServer/0", "rest/services/Parcels/VersionManagementServer", "rest/services/DemoBasemap/MapServer/tile/0/0/0",
                 "rest/services/DemoVectorBasemap/VectorTileServer/tile/0/0/0.pbf", "rest/services/Parcels/FeatureServer/replicas"):
        denied(call(portal, path, key=key, method="GET"))


def replica_of(base, **credentials):
    _, answer = call(base, "rest/services/Demo/FeatureServer/createReplica", layers="0", returnAttachments="false", syncModel="perLayer",
                     dataFormat="json", replicaName="keyed", geometry='{"xmin":-180,"ymin":-90,"xmax":180,"ymax":90}',
                     geometryType="esriGeometryEnvelope", inSR="4326", transportType="esriTransportTypeEmbedded", **credentials)
    assert answer.get("replicaID"), answer
    return answer


def test_a_read_only_key_syncs_no_edits_up(portal, demo):
    _, _, key = new_key(portal, "alice", [demo])
    name = f"Synced by key {uuid.uuid4().hex[:8]}"
    # Its own replica (download only) and alice's bidirectional one: the key acts as alice.
    for replica in (replica_of(portal, key=key), replica_of(portal, token=token_of(portal, "alice"))):
        generation = replica["layerServerGens"][0]["serverGen"]
        _, answer = call(portal, "rest/services/Demo/FeatureServer/synchronizeReplica", key=key, replicaID=replica["replicaID"],
                         transportType="esriTransportTypeEmbedded", syncDirection="bidirectional",
                         syncLayers=[{"id": 0, "serverGen": generation, "syncDirection": "bidirectional"}],
                         edits=[{"id": 0, "features": {"adds": [{"attributes": {"name": name}, "geometry": {"x": 8.5, "y": 47.4}}]}}])
        refused(answer)
    assert count(portal, CITIES, where=f"name = '{name}'", token=token_of(portal, "alice")) == 0


def test_removing_the_owner_ends_the_keys(portal, demo):
    name, password = f"carol{uuid.uuid4().hex[:6]}", "carol-password-1"
    users(DATA[portal], "add", name, "--role", "editor", password=password)
    _, _, key = new_key(portal, name, [demo, EDIT], password=password)
    assert isinstance(count(portal, CITIES, key=key), int)
    users(DATA[portal], "remove", name)
    refused(call(portal, f"{CITIES}/query", key=key, where="1=1", returnCountOnly="true")[1], 498)
