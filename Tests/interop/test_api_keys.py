"""API keys with the ArcGIS API for Python 2.4.4 as the client (docs/identity.md, "API keys"):
alice creates, lists, validates, narrows, resets and deletes keys of her own with its
APIKeyManager; `GIS(url, api_key=…)` queries and edits a layer her key names, and only with
the privileges it has; bob, another editor, reaches none of her keys. HTTPS with
`--require-auth`, on either backend (OUTPOST_INTEROP_BACKEND)."""
import uuid
from types import SimpleNamespace

import pytest

arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from arcgis.features import FeatureLayer  # noqa: E402
from arcgis.gis import GIS  # noqa: E402
from arcgis.gis._impl._apikeys import APIKeyManager  # noqa: E402

from api_key_support import (CITIES, EDIT, ITEM, PARCELS, PASSWORDS, app_info, call, count, portal, refused,  # noqa: E402,F401
                             service_item, sharing, token_of)

# The server's certificate is self-signed.
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")


def signed_in(base, user):
    gis = GIS(base, user, PASSWORDS[user], verify_cert=False)
    assert gis.users.me.username == user
    return gis


def manager(gis):
    # `gis.api_keys` is offered for ArcGIS Online only (`portalName` "ArcGIS Online"): the
    # same class, made for this portal.
    return APIKeyManager(gis)


@pytest.fixture(scope="module")
def alice(portal):
    return signed_in(portal, "alice")


@pytest.fixture(scope="module")
def demo_item(portal, alice):
    """The Demo feature service's item, as alice finds it."""
    found = [item for item in alice.content.search(query="Demo", item_type="Feature Service", max_items=100) if item.title == "Demo"]
    assert len(found) == 1, found
    assert found[0].id == service_item(portal, token_of(portal, "alice"), "Demo")
    return found[0]


def keyed(base, key):
    """A client holding only the key (no user)."""
    return GIS(base, api_key=key, verify_cert=False)


def cities(base, gis):
    return FeatureLayer(f"{base}/{CITIES}", gis=gis)


def city_count(base, name):
    """How many cities are called `name`, as alice (a user token) sees them."""
    return count(base, CITIES, where=f"name = '{name}'", token=token_of(base, "alice"))


def fails(action):
    """What a refused call ends with: the API for Python raises (its message is the server's),
    or answers the error; the caller checks that nothing happened."""
    try:
        return action()
    except Exception as error:  # the API raises plain Exceptions carrying the server's message
        return error


def test_alice_creates_lists_and_validates_a_key_and_edits_with_it(portal, alice, demo_item):
    keys = manager(alice)
    title = f"Field key {uuid.uuid4().hex[:6]}"
    key = keys.create(title, "field,apikey", privileges=[f"{ITEM}{demo_item.id}", EDIT])
    assert key.apikey.startswith("AAPK") and len(key.apikey) > 40, key.properties
    assert key.properties["appType"] == "apikey" and set(key.properties["privileges"]) == {f"{ITEM}{demo_item.id}", EDIT}, key.properties
    listed = [k._item.id for k in keys.keys]
    assert key._item.id in listed, listed
    assert keys.validate(key) is True
    assert keys.validate(key, privileges=[EDIT]) is True

    # The key alone: no user signed in.
    client = keyed(portal, key.apikey)
    layer = cities(portal, client)
    before = layer.query(where="1=1", return_count_only=True)
    assert isinstance(before, int) and before > 0, before
    name = f"Keyed {uuid.uuid4().hex[:8]}"
    result = layer.edit_features(adds=[{"attributes": {"name": name}, "geometry": {"x": 8.5, "y": 47.4}}])
    assert result["addResults"][0]["success"], result
    assert city_count(portal, name) == 1
    # Editor tracking names the key's owner.
    features = layer.query(where=f"name = '{name}'", out_fields="*").features
    assert len(features) == 1 and features[0].attributes["Creator"] == "alice" and features[0].attributes["Editor"] == "alice", features[0].attributes

    # A service the key does not name: refused, with the API's retry without the key too.
    other = fails(lambda: FeatureLayer(f"{portal}/{PARCELS}", gis=client).query(where="1=1", return_count_only=True))
    assert not isinstance(other, int), other
    key.delete()


def test_a_key_without_an_edit_privilege_reads_but_changes_nothing(portal, alice, demo_item):
    key = manager(alice).create(f"Read key {uuid.uuid4().hex[:6]}", "apikey", privileges=[f"{ITEM}{demo_item.id}"])
    assert manager(alice).validate(key, privileges=[EDIT]) is False
    layer = cities(portal, keyed(portal, key.apikey))
    assert isinstance(layer.query(where="1=1", return_count_only=True), int)
    name = f"Unkeyed {uuid.uuid4().hex[:8]}"
    edited = fails(lambda: layer.edit_features(adds=[{"attributes": {"name": name}, "geometry": {"x": 8.5, "y": 47.4}}]))
    assert isinstance(edited, Exception) or not edited["addResults"][0]["success"], edited
    assert city_count(portal, name) == 0
    # Over plain HTTP, the refusal itself: an error, nothing added.
    status, answer = call(portal, f"{CITIES}/applyEdits", key=key.apikey, adds=[{"attributes": {"name": name}, "geometry": {"x": 8.5, "y": 47.4}}])
    refused(answer, 403)
    assert city_count(portal, name) == 0
    key.delete()


def test_removing_the_item_from_the_privileges_ends_its_reach_at_once(portal, alice, demo_item):
    keys = manager(alice)
    key = keys.create(f"Narrowed {uuid.uuid4().hex[:6]}", "apikey", privileges=[f"{ITEM}{demo_item.id}", EDIT])
    value = key.apikey
    assert isinstance(count(portal, CITIES, key=value), int)
    parcels = service_item(portal, token_of(portal, "alice"), "Parcels")
    updated = key.update(privileges=[f"{ITEM}{parcels}", EDIT])
    assert "error" not in updated, updated
    assert key.properties["privileges"] == [f"{ITEM}{parcels}", EDIT], key.properties
    # The same key, unchanged, now reaches Parcels and no longer Demo.
    assert key.apikey == value
    refused(call(portal, f"{CITIES}/query", key=value, where="1=1", returnCountOnly="true")[1])
    assert isinstance(count(portal, PARCELS, key=value), int)
    key.delete()


def test_reset_ends_the_old_key_and_delete_ends_the_new(portal, alice, demo_item):
    key = manager(alice).create(f"Reset {uuid.uuid4().hex[:6]}", "apikey", privileges=[f"{ITEM}{demo_item.id}"])
    old = key.apikey
    assert isinstance(count(portal, CITIES, key=old), int)
    reset = key.reset()
    assert "error" not in reset, reset
    new = key.apikey
    assert new.startswith("AAPK") and new != old
    refused(call(portal, f"{CITIES}/query", key=old, where="1=1", returnCountOnly="true")[1], 498)
    assert isinstance(count(portal, CITIES, key=new), int)
    assert manager(alice).validate(key) is True
    item_id = key._item.id
    assert key.delete() is True
    refused(call(portal, f"{CITIES}/query", key=new, where="1=1", returnCountOnly="true")[1], 498)
    assert item_id not in [k._item.id for k in manager(alice).keys]


def test_bob_reaches_none_of_alices_keys(portal, alice, demo_item):
    key = manager(alice).create(f"Alice's {uuid.uuid4().hex[:6]}", "apikey", privileges=[f"{ITEM}{demo_item.id}"])
    value, client_id, item_id = key.apikey, key.properties["client_id"], key._item.id
    bob = signed_in(portal, "bob")
    bobs = manager(bob).create(f"Bob's {uuid.uuid4().hex[:6]}", "apikey", privileges=[f"{ITEM}{demo_item.id}"])
    # alice's list has hers, not bob's; bob's has his, not hers.
    assert bobs._item.id not in [k._item.id for k in manager(alice).keys]
    assert item_id not in [k._item.id for k in manager(bob).keys]

    bob_token = token_of(portal, "bob")
    read = app_info(portal, bob_token, "alice", item_id)
    refused(read)
    assert value not in str(read)
    for step in ("update", "resetApiKey"):
        answer = sharing(portal, f"oauth2/apps/{client_id}/{step}", token=bob_token, privileges=[f"{ITEM}{demo_item.id}", "features:user:edit"])
        refused(answer)
        assert value not in str(answer)
    unregister = sharing(portal, f"oauth2/apps/{client_id}/unregister", token=bob_token)
    refused(unregister)
    validated = sharing(portal, "oauth2/validateApiKey", token=bob_token, key=value, privilege=EDIT)
    refused(validated, 403)
    # Through the API for Python as bob: the same refusal raised.
    with pytest.raises(Exception):
        manager(bob).validate(SimpleNamespace(properties=SimpleNamespace(apiKey=value)))
    # Nothing changed: the key works, its privileges are as alice set them.
    assert isinstance(count(portal, CITIES, key=value), int)
    mine = app_info(portal, token_of(portal, "alice"), "alice", item_id)
    assert mine["apiKey"] == value and mine["privileges"] == [f"{ITEM}{demo_item.id}"], mine
    key.delete()
    bobs.delete()


def test_unregistering_the_item_ends_its_key_and_keeps_the_item(portal, alice, demo_item):
    key = manager(alice).create(f"Unregistered {uuid.uuid4().hex[:6]}", "apikey", privileges=[f"{ITEM}{demo_item.id}"])
    value, item = key.apikey, key._item
    assert isinstance(count(portal, CITIES, key=value), int)
    assert item.unregister() is True
    refused(call(portal, f"{CITIES}/query", key=value, where="1=1", returnCountOnly="true")[1], 498)
    assert alice.content.get(item.id) is not None
    assert not (item.app_info or {}).get("client_id"), item.app_info
    assert "Registered App" not in alice.content.get(item.id).typeKeywords
    assert item.id not in [k._item.id for k in manager(alice).keys]
    item.delete()
