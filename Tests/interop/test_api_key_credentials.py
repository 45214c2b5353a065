"""Developer credentials as ArcGIS REST JS makes them (packages/arcgis-rest-developer-credentials:
createApiKey, updateApiKey, invalidateApiKey, generateApiKeyToken), its requests replayed step by
step with `requests` and encoded as REST JS encodes them (arrays JSON-stringified, Dates as
milliseconds, -1 for none): an `Application` item, `registerApp` with `appType=multiple`,
`updateItem` with the slots' expiration dates, then `oauth2/token` with `apiToken=1|2` for each
slot (docs/identity.md, "API keys"). HTTPS with `--require-auth`, on either backend."""
import time
import uuid

import pytest

from api_key_support import CITIES, EDIT, ITEM, PARCELS, call, count, portal, refused, service_item, sharing, token_of  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")

OOB = "urn:ietf:wg:oauth:2.0:oob"
DAY_MS = 86_400_000


def slot_for_key(key):
    """helpers.ts `slotForKey`: the digit at `len-10`, when it is 1 or 2."""
    digit = key[len(key) - 10:len(key) - 9]
    return int(digit) if digit in ("1", "2") else None


def in_days(days):
    """A JavaScript Date `days` ahead, as REST JS's `request` sends it: milliseconds."""
    return int((time.time() + days * 86_400) * 1000)


class RestJS:
    """alice's `ArcGISIdentityManager` (a generateToken token sent as `token`) and the
    developer-credentials functions, request by request."""

    def __init__(self, base, owner="alice"):
        self.base, self.owner = base, owner
        self.token = token_of(base, owner)

    def portal(self, path, **params):
        answer = sharing(self.base, path, token=self.token, **params)
        assert "error" not in answer, f"{path}: {answer}"
        return answer

    def registered_app_info(self, item_id):
        """getRegisteredAppInfo.ts: POST `content/users/<user>/items/<id>/registeredAppInfo`."""
        return self.portal(f"content/users/{self.owner}/items/{item_id}/registeredAppInfo")

    def update_item(self, item_id, **fields):
        return sharing(self.base, f"content/users/{self.owner}/items/{item_id}/update", token=self.token, **fields)

    def generate_api_key_token(self, item_id, slot):
        """generateApiKeyToken.ts: the app's id and secret from registeredAppInfo, then
        `oauth2/token` without the user's token."""
        info = self.registered_app_info(item_id)
        assert info.get("client_id") and info.get("client_secret"), info
        return sharing(self.base, "oauth2/token", client_id=info["client_id"], client_secret=info["client_secret"], apiToken=slot,
                       regenerateApiToken="true", grant_type="client_credentials")

    def generate_tokens(self, item_id, slots):
        """helpers.ts `generateApiKeyTokens`: each answer's token filed under the slot read from it."""
        tokens = {}
        for slot in slots:
            answer = self.generate_api_key_token(item_id, slot)
            assert answer.get("access_token"), answer
            tokens[f"accessToken{slot_for_key(answer['access_token'])}"] = answer["access_token"]
        return tokens

    def create_api_key(self, privileges, referrers=None, expirations=None, slots=(1, 2)):
        """createApiKey.ts: createItem, registerApp, updateItem (expiration dates, -1 for none),
        getItem, generateApiKeyTokens, getRegisteredAppInfo."""
        item_id = self.portal(f"content/users/{self.owner}/addItem", type="Application", title=f"Credentials {uuid.uuid4().hex[:6]}",
                              tags="rest-js,apikey")["id"]
        app = self.portal("oauth2/registerApp", itemId=item_id, appType="multiple", redirect_uris=[OOB], httpReferrers=referrers or [],
                          privileges=privileges)
        assert app["appType"] == "multiple" and app["redirect_uris"] == [OOB] and app["itemId"] == item_id, app
        dates = {f"apiToken{slot}ExpirationDate": (expirations or {}).get(slot, -1) for slot in (1, 2)}
        updated = self.update_item(item_id, **dates)
        assert updated.get("success") is True, updated
        assert self.portal(f"content/items/{item_id}")["id"] == item_id
        tokens = self.generate_tokens(item_id, slots)
        return item_id, tokens, self.registered_app_info(item_id)

    def update_api_key(self, item_id, privileges=None, referrers=None, expirations=None, slots=()):
        """updateApiKey.ts: updateItem with the dates given, `oauth2/apps/<id>/update` with the
        app's privileges and referrers overridden by those given, then tokens for `slots`."""
        if expirations:
            updated = self.update_item(item_id, **{f"apiToken{slot}ExpirationDate": date for slot, date in expirations.items()})
            if "error" in updated:
                return updated
        if privileges is not None or referrers is not None:
            app = self.registered_app_info(item_id)
            params = {"privileges": privileges if privileges is not None else app.get("privileges", []),
                      "httpReferrers": referrers if referrers is not None else app.get("httpReferrers", [])}
            self.portal(f"oauth2/apps/{app['client_id']}/update", **params)
        return self.generate_tokens(item_id, slots)

    def invalidate_api_key(self, item_id, key):
        """invalidateApiKey.ts: `oauth2/revokeToken` with the app's id and secret and the slot."""
        info = self.registered_app_info(item_id)
        slot = key if key in (1, 2) else slot_for_key(key)
        return sharing(self.base, "oauth2/revokeToken", client_id=info["client_id"], client_secret=info["client_secret"], apiToken=slot,
                       regenerateApiToken="true", grant_type="client_credentials")


@pytest.fixture(scope="module")
def demo(portal):
    return f"{ITEM}{service_item(portal, token_of(portal, 'alice'), 'Demo')}"


def reaches(base, token):
    return isinstance(count(base, CITIES, key=token), int)


def test_create_api_key_issues_both_slots_and_both_work(portal, demo):
    client = RestJS(portal)
    item_id, tokens, info = client.create_api_key([demo, EDIT])
    assert set(tokens) == {"accessToken1", "accessToken2"}, tokens
    first, second = tokens["accessToken1"], tokens["accessToken2"]
    assert first.startswith("AAPT") and second.startswith("AAPT") and first != second
    assert slot_for_key(first) == 1 and slot_for_key(second) == 2
    assert info["apiToken1Active"] is True and info["apiToken2Active"] is True, info
    assert info["privileges"] == [demo, EDIT] and info["httpReferrers"] == [], info
    for token in (first, second):
        assert reaches(portal, token)
        # As REST JS sends it to a service: `token` in the form.
        assert isinstance(count(portal, CITIES, token=token), int)
        refused(call(portal, f"{PARCELS}/query", key=token, where="1=1", returnCountOnly="true")[1])
    name = f"Slot {uuid.uuid4().hex[:8]}"
    _, edits = call(portal, f"{CITIES}/applyEdits", token=second, adds=[{"attributes": {"name": name}, "geometry": {"x": 8.5, "y": 47.4}}])
    assert edits["addResults"][0]["success"], edits
    assert count(portal, CITIES, where=f"name = '{name}'", token=client.token) == 1


def test_regenerating_slot_one_ends_the_old_slot_one_token_only(portal, demo):
    client = RestJS(portal)
    item_id, tokens, _ = client.create_api_key([demo])
    renewed = client.update_api_key(item_id, slots=(1,))
    assert set(renewed) == {"accessToken1"} and renewed["accessToken1"] != tokens["accessToken1"], renewed
    refused(call(portal, f"{CITIES}/query", key=tokens["accessToken1"], where="1=1", returnCountOnly="true")[1], 498)
    assert reaches(portal, renewed["accessToken1"]) and reaches(portal, tokens["accessToken2"])


def test_invalidate_api_key_ends_one_slot(portal, demo):
    client = RestJS(portal)
    item_id, tokens, _ = client.create_api_key([demo])
    revoked = client.invalidate_api_key(item_id, tokens["accessToken2"])
    assert revoked.get("success") is True, revoked
    refused(call(portal, f"{CITIES}/query", key=tokens["accessToken2"], where="1=1", returnCountOnly="true")[1], 498)
    assert reaches(portal, tokens["accessToken1"])
    info = client.registered_app_info(item_id)
    assert info["apiToken1Active"] is True and info["apiToken2Active"] is False, info
    # By slot number as well; a wrong secret ends nothing.
    wrong = sharing(portal, "oauth2/revokeToken", client_id=info["client_id"], client_secret="not-the-secret", apiToken=1)
    refused(wrong)
    assert reaches(portal, tokens["accessToken1"])
    assert client.invalidate_api_key(item_id, 1).get("success") is True
    refused(call(portal, f"{CITIES}/query", key=tokens["accessToken1"], where="1=1", returnCountOnly="true")[1], 498)


def test_expiration_dates_bound_the_slots(portal, demo):
    client = RestJS(portal)
    item_id, tokens, _ = client.create_api_key([demo], slots=(1,))
    # -1 (none set): the longest, a year.
    default = client.generate_api_key_token(item_id, 1)
    assert abs(default["expires_in"] - 365 * 86_400) < 600, default
    three_days = client.update_api_key(item_id, expirations={1: in_days(3)})
    assert three_days == {}
    answer = client.generate_api_key_token(item_id, 1)
    assert abs(answer["expires_in"] - 3 * 86_400) < 600, answer
    # Two years ahead, and a date past: refused by updateItem, the date set stays.
    for date in (in_days(730), in_days(-1)):
        refused(client.update_item(item_id, apiToken1ExpirationDate=date), 400)
    again = client.generate_api_key_token(item_id, 1)
    assert abs(again["expires_in"] - 3 * 86_400) < 600, again
    assert reaches(portal, again["access_token"])


def test_update_api_key_privileges_apply_to_live_tokens(portal, demo):
    client = RestJS(portal)
    item_id, tokens, _ = client.create_api_key([demo, EDIT])
    parcels = f"{ITEM}{service_item(portal, client.token, 'Parcels')}"
    assert client.update_api_key(item_id, privileges=[parcels]) == {}
    info = client.registered_app_info(item_id)
    assert info["privileges"] == [parcels], info
    for token in tokens.values():
        refused(call(portal, f"{CITIES}/query", key=token, where="1=1", returnCountOnly="true")[1])
        assert isinstance(count(portal, PARCELS, key=token), int)
    # An item alice may not see, and a malformed privilege: refused, nothing changed.
    for bad in ([f"{ITEM}{'0' * 32}"], ["not a privilege"], [f"premium:user:p{i}" for i in range(65)]):
        refused(sharing(portal, f"oauth2/apps/{info['client_id']}/update", token=client.token, privileges=bad), 400)
    assert client.registered_app_info(item_id)["privileges"] == [parcels]
