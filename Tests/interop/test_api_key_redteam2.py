"""API keys and app tokens attacked from outside, second pass (red team, docs/identity.md, "Rules"
`client_credentials`, "API keys"): ways around the first pass's fixes found against a running
server. Each test asserts the behaviour the design asks for, so it fails while the hole is open.
HTTPS with `--require-auth`, on either backend."""
import uuid

import pytest

from api_key_support import (CITIES, OOB, credentials, EDIT, ITEM, add_item, call, count, new_key, portal,  # noqa: F401
                             refused, service_item, sharing, token_of)

pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")



@pytest.fixture(scope="module")
def demo(portal):
    return f"{ITEM}{service_item(portal, token_of(portal, 'alice'), 'Demo')}"


def app_token(base, privileges, referrers=()):
    """alice's app as ArcGIS REST JS's `createApiKey` registers one, and a token its secret buys
    (`client_credentials`, no `apiToken`): what a server holding the secret gets."""
    client_id, secret = credentials(base, privileges, referrers)
    answer = sharing(base, "oauth2/token", client_id=client_id, client_secret=secret, grant_type="client_credentials")
    assert answer.get("access_token"), answer
    return answer["access_token"]


def test_an_app_token_of_an_app_configuring_nothing_reads_no_keys_or_secrets(portal, demo):
    """An app registering neither privileges nor referrers buys app tokens of its owner's viewer
    reach, but such a token is handed no key scope at all and passes as the owner's session:
    `registeredAppInfo` of the owner's other apps answers their `apiKey` (one with
    `features:user:edit` edits Demo at once) and `client_secret` (which mints their `apiToken`
    slots, ending the live ones), and `portals/self/apiKeys` lists them. An app token carries at
    most `viewer` and never edits; keys' management routes are refused to it as to any key."""
    owner = token_of(portal, "alice")
    key_item, _, _ = new_key(portal, "alice", [demo, EDIT])
    app_item = add_item(portal, owner, "alice", "Application", tags="server")
    assert sharing(portal, "oauth2/registerApp", token=owner, itemId=app_item, appType="multiple", redirect_uris=[OOB],
                   privileges=[demo, EDIT]).get("client_id")
    token = app_token(portal, [])
    for item_id in (key_item, app_item):
        _, answer = call(portal, f"sharing/rest/content/users/alice/items/{item_id}/registeredAppInfo", token=token)
        refused(answer)
    refused(call(portal, "sharing/rest/portals/self/apiKeys", token=token)[1])
    # Whatever it read, nothing it holds edits.
    stolen = (call(portal, f"sharing/rest/content/users/alice/items/{key_item}/registeredAppInfo", token=token)[1] or {}).get("apiKey")
    if stolen:
        name = f"Stolen {uuid.uuid4().hex[:8]}"
        call(portal, f"{CITIES}/applyEdits", key=stolen, adds=[{"attributes": {"name": name}, "geometry": {"x": 8.5, "y": 47.4}}])
        assert count(portal, CITIES, where=f"name = '{name}'", token=owner) == 0


@pytest.mark.parametrize("scoped", [False, True], ids=["app configuring nothing", "scoped app"])
def test_signout_with_an_app_token_ends_none_of_its_owners_sessions(portal, demo, scoped):
    """App tokens are no session of a user (`signout` leaves them, and is refused to keys), but
    the token of an app configuring neither privileges nor referrers is taken at
    `oauth2/signout` as its owner's session and ends every token of hers: a server holding
    an app's secret signs its owner out everywhere."""
    session = token_of(portal, "alice")
    assert isinstance(count(portal, CITIES, token=session), int)
    token = app_token(portal, [demo] if scoped else [])
    call(portal, "sharing/rest/oauth2/signout", token=token)
    assert isinstance(count(portal, CITIES, token=session), int), "an app token's signout ended its owner's session"
