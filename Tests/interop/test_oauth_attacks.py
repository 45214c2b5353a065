"""A red-team pass of the portal's sign-in page (docs/identity.md, issue 46): open redirects,
login CSRF, the sign-in cookie, framing, brute force, against one HTTPS portal with token
security, partly in headless Chromium."""
import re
import time
from urllib.parse import urlsplit

import pytest

pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
from conftest import needs_chromium  # noqa: E402
from oauth_clients_support import (  # noqa: E402,F401
    PASSWORD, authorize_url, browser_app, callback, chromium, portal, sign_in_by_keyboard, wait_for)
from oauth_support import browser, generated_token, oauth_info, post  # noqa: E402

# The servers' certificates are self-signed.
pytestmark = pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")


# 3. The red team: open redirects, login CSRF, brute force, framing.

def redirect_variants(base, callback):
    portal = urlsplit(base).netloc
    registered_uri = callback.url
    return [
        "https://evil.example", "https://evil.example/callback", f"https://{portal}@evil.example/", f"https://{portal}@evil.example/arcgis",
        f"http://127.0.0.1:{callback.port}@evil.example/callback", f"https://evil.example\\@{portal}/arcgis", f"https://{portal}.evil.example/",
        "//evil.example", "//evil.example/callback", "///evil.example", "\\\\evil.example", "https:evil.example",
        registered_uri + ".evil.example", registered_uri + "/../../evil", registered_uri + "x", registered_uri + "?next=https://evil.example",
        registered_uri + "#@evil.example", registered_uri.replace("/callback", "//evil.example/callback"),
        registered_uri.upper(), "javascript:alert(1)", "JavaScript:alert(document.domain)//" + registered_uri,
        f"javascript://{portal}/%0aalert(1)", "data:text/html,<script>alert(1)</script>", "evil.example",
    ]


def leads_to_evil(answer):
    """Whether an answer sends a browser to a foreign place: a Location, a link, a form, a
    refresh, or a policy letting the form go there."""
    if answer.headers.get("Location"):
        return True
    if "evil.example" in answer.headers.get("Content-Security-Policy", "") or "javascript:" in answer.headers.get("Content-Security-Policy", ""):
        return True
    return bool(re.search(r"(href|action|src|formaction)\s*=\s*[\"']?\s*(javascript:|data:|[^\"'>]*evil\.example)|http-equiv", answer.text, re.I))


def test_no_redirect_uri_variant_leads_anywhere(portal, browser_app, callback):
    base, _ = portal
    clients = [browser_app["client_id"], "arcgisonline", "pythonapi"]
    for client_id in clients:
        for uri in redirect_variants(base, callback):
            for response_type in ("code", "token"):
                answer = browser().get(authorize_url(base, client_id, uri, response_type=response_type, state="s"), allow_redirects=False, timeout=60)
                assert answer.status_code == 400, (client_id, uri, answer.status_code)
                assert not leads_to_evil(answer), (client_id, uri, answer.headers, answer.text)
                info = oauth_info(answer.text)
                assert info and not info.get("oauth_state") and "<form" not in answer.text, (client_id, uri)
                assert "Invalid redirect_uri" in answer.text, (client_id, uri, answer.text)
            # Signing out with a redirect never goes there either.
            out = browser().get(f"{base}/sharing/rest/oauth2/signout", params={"client_id": client_id, "redirect_uri": uri}, allow_redirects=False,
                                timeout=60)
            assert "Location" not in out.headers and out.status_code in (200, 400), (client_id, uri, out.status_code, out.headers)
    # The registered address itself is allowed: the variants were refused for what they are.
    fine = browser().get(authorize_url(base, browser_app["client_id"], callback.url, state="s"), allow_redirects=False, timeout=60)
    assert fine.status_code == 200 and oauth_info(fine.text).get("oauth_state")


def sign_in_page(session, url):
    page = session.get(url, timeout=60)
    assert page.status_code == 200, page.text
    return oauth_info(page.text)["oauth_state"]


def refused_without_form(answer):
    assert answer.status_code == 400 and "Location" not in answer.headers, (answer.status_code, answer.headers)
    info = oauth_info(answer.text)
    assert info and info.get("error") == "invalid_request" and not info.get("oauth_state") and "<form" not in answer.text, answer.text


def test_a_state_of_one_browser_with_the_cookie_of_another_is_refused(portal, browser_app, callback):
    base, _ = portal
    url = authorize_url(base, browser_app["client_id"], callback.url, state="s")
    attacker, victim = browser(), browser()
    attacker_state = sign_in_page(attacker, url)
    victim_state = sign_in_page(victim, url)
    assert attacker.cookies.get("outpost_signin") != victim.cookies.get("outpost_signin")
    signin = f"{base}/sharing/oauth2/signin"
    for session, state in ((victim, attacker_state), (attacker, victim_state)):
        refused_without_form(session.post(signin, data={"oauth_state": state, "username": "alice", "password": PASSWORD}, allow_redirects=False, timeout=60))
    # Each browser's own pair goes through.
    answer = victim.post(signin, data={"oauth_state": victim_state, "username": "alice", "password": PASSWORD}, allow_redirects=False, timeout=60)
    assert answer.status_code == 302 and answer.headers["Location"].startswith(callback.url + "?code="), answer.headers


def test_the_sign_in_cookie_stays_home(portal, browser_app, callback):
    """The nonce cookie is what a cross-site form cannot send: HttpOnly, SameSite=Lax (a
    browser withholds it from another site's POST), Secure over HTTPS, on the sign-in's path."""
    base, _ = portal
    page = browser().get(authorize_url(base, browser_app["client_id"], callback.url), timeout=60)
    attributes = [part.strip().lower() for part in page.headers["Set-Cookie"].split(";")]
    assert attributes[0].startswith("outpost_signin=")
    assert {"httponly", "samesite=lax", "secure", "path=/arcgis/sharing"} <= set(attributes), attributes
    # A post as another site's form sends it (Origin and Sec-Fetch-Site of elsewhere, no cookie).
    state = oauth_info(page.text)["oauth_state"]
    refused_without_form(browser().post(f"{base}/sharing/oauth2/signin", data={"oauth_state": state, "username": "alice", "password": PASSWORD},
                                        headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Referer": "https://evil.example/"},
                                        allow_redirects=False, timeout=60))


def evil_form(action, state):
    return ("<!DOCTYPE html><html lang=\"en\"><title>win a prize</title><form method=\"post\" action=\"" + action + "\">"
            f"<input type=\"hidden\" name=\"oauth_state\" value=\"{state}\"><input type=\"hidden\" name=\"username\" value=\"alice\">"
            f"<input type=\"hidden\" name=\"password\" value=\"{PASSWORD}\"><button id=\"go\" type=\"submit\">go</button></form></html>")


@needs_chromium
def test_another_sites_form_cannot_sign_the_browser_in(portal, browser_app, callback, chromium):
    """Login CSRF in a real browser: a page of another site (localhost, not 127.0.0.1) posts the
    sign-in form with a state (the attacker's own, or even the victim's) to a browser that has
    the sign-in page open: the browser withholds the cookie, the server refuses."""
    from selenium.webdriver.common.by import By

    base, _ = portal
    url = authorize_url(base, browser_app["client_id"], callback.url, state="victim")
    chromium.get(url)
    victim_state = chromium.find_element(By.NAME, "oauth_state").get_attribute("value")
    attacker_state = sign_in_page(browser(), url)
    for name, state in (("attacker", attacker_state), ("victim", victim_state)):
        callback.pages[f"/evil-{name}"] = evil_form(f"{base}/sharing/oauth2/signin", state)
        before = len(callback.hits())
        chromium.get(f"{callback.elsewhere}/evil-{name}")
        chromium.find_element(By.ID, "go").click()
        alert = wait_for(chromium, lambda d: d.find_elements(By.CSS_SELECTOR, "[role='alert']"))[0]
        assert "did not come from the sign-in page" in alert.text, (name, alert.text)
        assert chromium.current_url.startswith(f"{base}/sharing/oauth2/signin") and not chromium.find_elements(By.TAG_NAME, "form"), name
        assert len(callback.hits()) == before, name
    # The same browser signs in from the page itself.
    chromium.get(url)
    sign_in_by_keyboard(chromium, "alice", PASSWORD)
    wait_for(chromium, lambda d: d.current_url.startswith(callback.url))


def csp_directives(answer):
    policy = answer.headers.get("Content-Security-Policy", "")
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


def framing_refused(answer):
    assert answer.headers.get("X-Frame-Options") == "DENY", (answer.url, answer.headers)
    directives = csp_directives(answer)
    assert directives.get("frame-ancestors") == ["'none'"] and directives.get("default-src") == ["'none'"], (answer.url, directives)
    assert not any(name.startswith("script-src") for name in directives), (answer.url, directives)
    assert answer.headers.get("Cache-Control") == "no-store", answer.headers


def test_every_sign_in_page_refuses_framing_and_script(portal, browser_app, callback):
    base, _ = portal
    session = browser()
    url = authorize_url(base, browser_app["client_id"], callback.url, state="s")
    page = session.get(url, timeout=60)
    framing_refused(page)
    assert csp_directives(page)["form-action"] == ["'self'", f"http://127.0.0.1:{callback.port}"]
    framing_refused(browser().get(authorize_url(base, browser_app["client_id"], "https://evil.example"), timeout=60))
    wrong = session.post(f"{base}/sharing/oauth2/signin", data={"oauth_state": oauth_info(page.text)["oauth_state"], "username": "nobody",
                                                                "password": "x"}, allow_redirects=False, timeout=60)
    assert wrong.status_code == 400
    framing_refused(wrong)
    framing_refused(browser().get(f"{base}/sharing/oauth2/approval", params={"code": "0" * 64}, timeout=60))


@needs_chromium
def test_another_site_cannot_frame_the_sign_in_page(portal, browser_app, callback, chromium):
    from selenium.webdriver.common.by import By

    base, _ = portal

    def framed(src):
        callback.pages["/frame"] = f"<!DOCTYPE html><html lang=\"en\"><title>frame</title><iframe id=\"f\" src=\"{src}\"></iframe></html>"
        chromium.get(f"{callback.elsewhere}/frame")
        time.sleep(2)
        chromium.switch_to.frame(chromium.find_element(By.ID, "f"))
        return chromium

    # A page that may be framed is drawn in the frame (the check sees into frames)…
    assert framed(callback.url).find_element(By.TAG_NAME, "p").text == "back"
    chromium.switch_to.default_content()
    # …the sign-in page is not.
    assert not framed(authorize_url(base, browser_app["client_id"], callback.url)).find_elements(By.ID, "password"), \
        "the sign-in form was drawn in another site's frame"


def throttle_page(answer):
    """A throttled sign-in: 429 with `Retry-After`, the page announcing it, nothing issued."""
    assert answer.status_code == 429 and "Location" not in answer.headers, (answer.status_code, answer.headers)
    wait = int(answer.headers["Retry-After"])
    assert wait >= 1
    assert 'role="alert"' in answer.text and "Too many" in answer.text
    framing_refused(answer)
    return wait


def test_brute_force_on_the_sign_in_page_is_throttled_with_generate_token(portal, browser_app, callback):
    """Ten wrong passwords through the page (waiting out each 429, so the waits grow):
    429 with Retry-After; then the right password is refused too, on the page and by
    `generateToken` (one throttle), until the wait has passed."""
    base, _ = portal
    # A success clears the throttle's records of the name and the address (127.0.0.1, as
    # every test's): the count starts here.
    generated_token(base, "alice", PASSWORD)
    session = browser()
    state = sign_in_page(session, authorize_url(base, browser_app["client_id"], callback.url, state="s"))
    signin = f"{base}/sharing/oauth2/signin"

    def attempt(password):
        nonlocal state
        answer = session.post(signin, data={"oauth_state": state, "username": "alice", "password": password}, allow_redirects=False, timeout=60)
        info = oauth_info(answer.text)
        if info and info.get("oauth_state"):
            state = info["oauth_state"]
        return answer

    statuses = []
    for guess in range(10):
        answer = attempt(f"guess-{guess}")
        statuses.append(answer.status_code)
        assert "Location" not in answer.headers, answer.headers
        if answer.status_code == 429:
            wait = throttle_page(answer)
            # Waited out (but for the last): the next guess is checked and the waits grow.
            if guess < 9:
                time.sleep(wait)
        else:
            assert answer.status_code == 400 and "Invalid username or password" in answer.text, (answer.status_code, answer.text)
    assert statuses[:3] == [400, 400, 400] and 429 in statuses, statuses
    assert statuses[-1] == 429, statuses

    right = attempt(PASSWORD)
    wait = throttle_page(right)
    token = browser().post(f"{base}/sharing/rest/generateToken", data={"username": "alice", "password": PASSWORD, "client": "requestip", "f": "json"},
                           timeout=60)
    assert "token" not in token.json(), token.text
    assert token.status_code == 429 or token.json().get("error", {}).get("code") == 429, (token.status_code, token.text)
    assert int(token.headers.get("Retry-After", "0")) >= 1, token.headers

    time.sleep(wait + 1)
    answer = attempt(PASSWORD)
    assert answer.status_code == 302 and answer.headers["Location"].startswith(callback.url + "?code="), (answer.status_code, answer.text)
    assert "token" in post(f"{base}/sharing/rest/generateToken", username="alice", password=PASSWORD, client="requestip")
