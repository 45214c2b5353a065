"""The home shows each user only the controls their role may use, and the REST API refuses the
rest anyway (docs/home.md, "Rights"): a viewer sees no upload, edit, share or delete control
and no organization link; the same forms posted by hand with the viewer's own session and
forms' secret change nothing; another editor cannot change an editor's item."""
import json

import pytest
import requests
from conftest import needs_chromium

import home_support as h

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def base():
    with h.home_server() as base:
        yield base


@pytest.fixture(scope="module")
def item(base):
    """Eddie's web map, shared with the organization: its id."""
    token = h.token(base, "eddie")
    answer = h.rest(base, "/sharing/rest/content/users/eddie/addItem", token, data={
        "type": "Web Map", "title": "Eddie's map", "tags": "home", "text": json.dumps({"operationalLayers": [], "version": "2.31"})})
    assert answer.get("success"), answer
    shared = h.rest(base, f"/sharing/rest/content/users/eddie/items/{answer['id']}/share", token, data={"org": "true", "everyone": "false"})
    assert shared.get("itemId") or shared.get("notSharedWith") == [], shared
    return answer["id"]


def state(base, item):
    """What a refused form must leave as it was: the item's details and sharing, the members and roles."""
    admin = h.token(base, "ada")
    details = h.rest(base, f"/sharing/rest/content/items/{item}", admin)
    users = h.rest(base, "/sharing/rest/portals/self/users", admin, num="100")["users"]
    services = h.rest(base, "/rest/services", admin)["services"]
    found = h.rest(base, "/sharing/rest/search", admin, q="owner:vic", num="100")["results"]
    return {"title": details.get("title"), "snippet": details.get("snippet"), "access": details.get("access"),
            "members": sorted((u["username"], u["role"]) for u in users), "services": sorted(s["name"] for s in services),
            "vic's items": len(found)}


def hand_posts(base, item):
    """Every form a viewer (or a stranger to the item) could forge, with what it would change."""
    return {
        "updateItem": {"id": item, "title": "Forged", "snippet": "forged", "return": f"item.html?id={item}"},
        "share": {"id": item, "access": "public", "return": "content.html"},
        "deleteItem": {"id": item, "return": "content.html"},
        "addMember": {"username": "mallory", "password": "mallory-password-1", "role": "org_admin", "fullname": "M", "return": "organization.html"},
        "changeRole": {"user": "vic", "role": "org_admin", "return": "organization.html"},
        "removeMember": {"user": "eddie", "return": "organization.html"},
        "upload": {"filetype": "geojson", "title": "Forged upload", "name": "Forged"},
    }


# The file a forged upload carries.
FORGED_FILE = ("forged.geojson", b'{"type": "FeatureCollection", "features": []}', "application/geo+json")


def post_as(driver, base, action, form):
    """The form posted by `requests` with the browser's own cookies and forms' secret: only the
    rights decide."""
    # One connection per form, closed after: the browser already holds several.
    with requests.Session() as session:
        session.cookies.update(h.cookies_of(driver))
        answer = session.post(h.home(base, f"actions/{action}"), data={**form, "csrf": h.csrf_of(driver)},
                              files={"file": FORGED_FILE} if action == "upload" else None,
                              headers={"Origin": base.rsplit("/arcgis", 1)[0]}, allow_redirects=False, timeout=60)
        assert answer.status_code == 303, f"{action}: {answer.status_code} {answer.text[:300]}"
        # The page the action sends back to, with the message it left.
        return session.get(base.rsplit("/arcgis", 1)[0] + answer.headers["location"], timeout=60).text


def control_problems(driver):
    """Upload, edit, share and delete controls on the page, and links to the organization."""
    return driver.execute_script("""
        const found = [];
        for (const f of document.querySelectorAll('form')) {
          const action = f.getAttribute('action') || '';
          if (/actions\\/(updateItem|share|deleteItem|createMapArea|deleteMapArea|refreshMapArea|upload|publish|addItem|createWebMap)/i.test(action)) found.push('form ' + action);
        }
        for (const e of document.querySelectorAll('input[type=file], select[name=access]')) found.push(e.outerHTML.slice(0, 80));
        for (const b of document.querySelectorAll('button, a')) if (/^(delete|edit|share|upload|add data)/i.test(b.textContent.trim())) found.push(b.outerHTML.slice(0, 80));
        for (const a of document.querySelectorAll('a[href*="organization.html"]')) found.push(a.outerHTML.slice(0, 80));
        return found;""")


def test_viewer_sees_no_control_and_forged_forms_change_nothing(base, item):
    before = state(base, item)
    with h.browser() as driver:
        h.sign_in(driver, base, "vic")
        pages = {"index.html": [], "content.html": [], f"item.html?id={item}": []}
        for page in pages:
            driver.get(h.home(base, page))
            assert "Eddie's map" in driver.page_source or page != f"item.html?id={item}", "the viewer cannot read the shared item"
            pages[page] = control_problems(driver)
            if page.startswith("item"):
                h.screenshot(driver, "viewer-item")
        assert not any(pages.values()), {p: c for p, c in pages.items() if c}
        driver.get(h.home(base, "organization.html"))
        assert "administrators" in driver.find_element("tag name", "main").text
        driver.get(h.home(base, "content.html"))
        for action, form in hand_posts(base, item).items():
            page = post_as(driver, base, action, form)
            assert 'role="alert"' in page, f"{action}: the page shows no refusal"
            assert state(base, item) == before, f"the viewer's forged {action} changed something"


def test_another_editor_cannot_change_the_item(base, item):
    before = state(base, item)
    # The REST API itself refuses Erin's token (the home adds nothing to the rights).
    answer = h.rest(base, f"/sharing/rest/content/users/eddie/items/{item}/update", h.token(base, "erin"), data={"title": "Erin's"})
    assert "error" in answer, answer
    with h.browser() as driver:
        h.sign_in(driver, base, "erin")
        driver.get(h.home(base, f"item.html?id={item}"))
        assert not [c for c in control_problems(driver) if "updateItem" in c or "deleteItem" in c or "share" in c], control_problems(driver)
        for action in ("updateItem", "share", "deleteItem"):
            page = post_as(driver, base, action, hand_posts(base, item)[action])
            assert 'role="alert"' in page, f"{action}: the page shows no refusal"
            assert state(base, item) == before, f"Erin's {action} changed Eddie's item"
    # The owner can: the same form works for Eddie, so the refusals above are the rights'.
    with h.browser() as driver:
        h.sign_in(driver, base, "eddie", page=f"item.html?id={item}")
        post_as(driver, base, "updateItem", {"id": item, "title": "Eddie's map", "snippet": "checked", "return": f"item.html?id={item}"})
    assert state(base, item)["snippet"] == "checked"
