"""What the OAuth 2.0 interop tests share (test_oauth.py, test_oauth_clients.py): HTTPS sessions
that accept the test server's self-signed certificate, form posts, a generateToken token, the
sign-in page's `oAuthInfo`, and the server's request log."""
import json
import re

import requests


def unverified(session):
    """The self-signed certificate accepted (the environment's CA bundle would override `verify`)."""
    session.verify = False
    session.trust_env = False
    return session


def browser():
    return unverified(requests.Session())


def post(url, **form):
    return browser().post(url, data={"f": "json", **form}, timeout=60).json()


def generated_token(base, username, password):
    answer = post(f"{base}/sharing/rest/generateToken", username=username, password=password, client="requestip")
    assert "token" in answer, answer
    return answer["token"]


def oauth_info(page):
    """The `var oAuthInfo = {…};` of a sign-in page, as the ArcGIS API for Python reads it."""
    match = re.search(r"var oAuthInfo = ({.*?});", page, re.DOTALL)
    return json.loads(match.group(1)) if match else None


def request_log(path, start=0):
    """The server's request lines from byte `start` on, as dictionaries of their fields."""
    with open(path, "rb") as log:
        log.seek(start)
        lines = log.read().decode(errors="replace").splitlines()
    return [dict(re.findall(r"(\w+)=(\S+)", line)) for line in lines if line.endswith(" request")]
