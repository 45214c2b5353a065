"""Single sign-on with an OpenID Connect provider (docs/identity.md, "Single sign-on", issue 46):
PyPI's `oidc-provider-mock` as the organisation's provider, Outpost with `--require-auth
--oidc-issuer …`, and headless Chromium clicking "Sign in with …" on the portal's sign-in
page, completing the provider's page and landing on the out-of-band page with a code; the
user is created with the role the claim names, and the ArcGIS API for Python reads the
portal with the token. Refusals: an altered provider state, and the provider's `access_denied`."""
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest

pytest.importorskip("oidc_provider_mock", reason="oidc-provider-mock is in Tests/interop/requirements.txt")
arcgis = pytest.importorskip("arcgis", reason="the ArcGIS API for Python is installed by scripts/setup.sh --with-clients")
import requests  # noqa: E402
from arcgis.gis import GIS  # noqa: E402

from conftest import BINARY, free_port, headless_chromium, needs_chromium, on_backend, running_server  # noqa: E402

pytestmark = [needs_chromium, pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")]

OOB = "urn:ietf:wg:oauth:2.0:oob"


@contextlib.contextmanager
def mock_provider():
    """`oidc-provider-mock` on a free loopback port; yields its issuer."""
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="oidc-mock-", suffix=".log", delete=False)
    process = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(port), "--host", "127.0.0.1"],
                               stdout=log, stderr=subprocess.STDOUT)
    issuer = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 30
        while True:
            try:
                urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.time() > deadline:
                    raise RuntimeError("oidc-provider-mock did not start:\n" + open(log.name, errors="replace").read())
                time.sleep(0.2)
        yield issuer
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def sso():
    """The provider, with sso-ada an editor by the `outpost_role` claim and mallory naming
    herself after a local admin, and a portal using it."""
    with mock_provider() as issuer:
        for sub, claims in [("ada-sub", {"preferred_username": "sso-ada", "email": "ada@example.org", "outpost_role": ["staff", "editor"]}),
                            ("mallory-sub", {"preferred_username": "root", "outpost_role": "admin"})]:
            answer = requests.put(f"{issuer}/users/{sub}", json=claims, timeout=30)
            assert answer.status_code < 300, answer.text
        data = tempfile.mkdtemp(prefix="outpost-oidc-")
        added = subprocess.run(on_backend([BINARY, "users", "add", "root", "--role", "admin", "--data", data]),
                               env={**os.environ, "OUTPOST_PASSWORD": "root-password-1"}, capture_output=True, text=True)
        assert added.returncode == 0, added.stderr
        with running_server(data, "--require-auth", "--oidc-issuer", issuer, "--oidc-client-id", "outpost-portal",
                            "--oidc-client-secret", "portal-secret-1", "--oidc-name", "Example ID", "--oidc-role-claim",
                            "outpost_role", tls=True) as base:
            yield base, issuer, data


@pytest.fixture()
def chromium():
    with headless_chromium("--ignore-certificate-errors") as driver:
        yield driver


def authorize_url(base):
    query = urlencode({"client_id": "pythonapi", "response_type": "code", "redirect_uri": OOB, "expiration": "120"})
    return f"{base}/sharing/rest/oauth2/authorize?{query}"


def users(data):
    listed = subprocess.run(on_backend([BINARY, "users", "list", "--data", data]), capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    return dict(line.split("\t") for line in listed.stdout.splitlines() if "\t" in line)


def back_at_the_callback(driver, base):
    """Waits for the provider's redirect to land on the portal's callback page."""
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, 30).until(lambda d: d.current_url.startswith(f"{base}/sharing/oauth2/oidc/callback") and "</main>" in d.page_source)


def test_sign_in_with_the_provider_ends_in_a_token_the_python_api_uses(sso, chromium):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    base, issuer, data = sso
    assert "sso-ada" not in users(data)
    chromium.get(authorize_url(base))
    link = chromium.find_element(By.LINK_TEXT, "Sign in with Example ID")
    assert "/sharing/oauth2/oidc/start?oauth_state=" in link.get_attribute("href")
    link.click()
    assert chromium.current_url.startswith(f"{issuer}/oauth2/authorize"), chromium.current_url
    provider_query = parse_qs(urlsplit(chromium.current_url).query)
    assert provider_query["client_id"] == ["outpost-portal"] and provider_query["code_challenge_method"] == ["S256"], provider_query
    assert provider_query["redirect_uri"] == [f"{base}/sharing/oauth2/oidc/callback"], provider_query
    chromium.find_element(By.NAME, "sub").send_keys("ada-sub")
    chromium.find_element(By.XPATH, "//button[text()='Authorize']").click()
    WebDriverWait(chromium, 30).until(lambda driver: driver.title.startswith("SUCCESS"))
    code = re.fullmatch(r"SUCCESS code=([0-9a-f]{64})", chromium.title).group(1)

    # The user exists, with the role the claim names (the highest of "staff", "editor").
    assert users(data).get("sso-ada") == "editor"
    token = requests.post(f"{base}/sharing/rest/oauth2/token", data={
        "f": "json", "grant_type": "authorization_code", "client_id": "pythonapi", "code": code, "redirect_uri": OOB,
    }, verify=False, timeout=60).json()
    assert token.get("username") == "sso-ada" and token.get("access_token"), token

    gis = GIS(base, token=token["access_token"], verify_cert=False)
    assert gis.users.me.username == "sso-ada"
    assert gis.properties["user"]["role"] == "org_publisher", gis.properties["user"]
    assert gis.content.search("*", max_items=5) is not None

    # The secret is redacted in the start-up line.
    log = open(os.path.join(data, "server.log"), errors="replace").read()
    assert "oidc-client-secret=<redacted> (command line)" in log and "portal-secret-1" not in log
    assert f"oidc-issuer={issuer} (command line)" in log

    # A second sign-in finds the same user, created once.
    chromium.get(authorize_url(base))
    chromium.find_element(By.LINK_TEXT, "Sign in with Example ID").click()
    chromium.find_element(By.NAME, "sub").send_keys("ada-sub")
    chromium.find_element(By.XPATH, "//button[text()='Authorize']").click()
    WebDriverWait(chromium, 30).until(lambda driver: driver.title.startswith("SUCCESS"))
    assert list(users(data)).count("sso-ada") == 1


def test_an_altered_provider_state_is_refused(sso, chromium):
    from selenium.webdriver.common.by import By
    base, issuer, data = sso
    before = users(data)
    chromium.get(authorize_url(base))
    chromium.find_element(By.LINK_TEXT, "Sign in with Example ID").click()
    parts = urlsplit(chromium.current_url)
    query = parse_qs(parts.query)
    state = query["state"][0]
    query["state"] = [state[:-6] + ("AAAAAA" if not state.endswith("AAAAAA") else "BBBBBB")]
    chromium.get(urlunsplit(parts._replace(query=urlencode(query, doseq=True))))
    chromium.find_element(By.NAME, "sub").send_keys("mallory-sub")
    chromium.find_element(By.XPATH, "//button[text()='Authorize']").click()
    back_at_the_callback(chromium, base)
    assert "Invalid or expired single sign-on state" in chromium.page_source
    assert "SUCCESS" not in chromium.title
    assert users(data) == before


def test_the_providers_access_denied_is_shown_and_nothing_created(sso, chromium):
    from selenium.webdriver.common.by import By
    base, issuer, data = sso
    before = users(data)
    chromium.get(authorize_url(base))
    chromium.find_element(By.LINK_TEXT, "Sign in with Example ID").click()
    chromium.find_element(By.XPATH, "//button[text()='Deny']").click()
    back_at_the_callback(chromium, base)
    assert "did not sign you in (access_denied" in chromium.page_source, chromium.page_source
    assert "SUCCESS" not in chromium.title
    assert users(data) == before


def test_a_provider_user_named_as_a_local_user_is_refused(sso, chromium):
    """Names alone never bind: mallory's `preferred_username` "root" does not make her the
    local admin root, and nothing changes."""
    from selenium.webdriver.common.by import By
    base, issuer, data = sso
    before = users(data)
    chromium.get(authorize_url(base))
    chromium.find_element(By.LINK_TEXT, "Sign in with Example ID").click()
    chromium.find_element(By.NAME, "sub").send_keys("mallory-sub")
    chromium.find_element(By.XPATH, "//button[text()='Authorize']").click()
    back_at_the_callback(chromium, base)
    assert "belongs to another account" in chromium.page_source, chromium.page_source
    assert "SUCCESS" not in chromium.title
    assert users(data) == before
    generated = requests.post(f"{base}/sharing/rest/generateToken", data={"f": "json", "username": "root", "password": "root-password-1",
                                                                         "client": "requestip"}, verify=False, timeout=60).json()
    assert generated.get("token"), generated


def test_the_settings_come_from_the_config_file_and_environment_with_the_secret_redacted(monkeypatch, tmp_path):
    import json
    config = tmp_path / "outpost.json"
    config.write_text(json.dumps({"oidc-issuer": "http://127.0.0.1:9", "oidc-client-id": "from-file", "oidc-name": "Config ID"}))
    monkeypatch.setenv("OUTPOST_OIDC_CLIENT_SECRET", "env-secret-42")
    data = tempfile.mkdtemp(prefix="outpost-oidc-config-")
    with running_server(data, "--config", str(config), "--require-auth", tls=True) as base:
        page = requests.get(authorize_url(base), verify=False, timeout=60)
        assert page.status_code == 200 and ">Sign in with Config ID</a>" in page.text, page.text
    log = open(os.path.join(data, "server.log"), errors="replace").read()
    assert "oidc-client-id=from-file (file)" in log and "oidc-client-secret=<redacted> (environment)" in log, log
    assert "env-secret-42" not in log
