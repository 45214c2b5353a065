"""A hostile review of federation and the restore's listing, over a real socket and the real
CLI (Tests/OutpostServerTests/IdentityAttackTests.swift has the router-level attacks).
"Was a finding (fixed)" tests failed before their fix and guard it; the others are attacks
that held."""
import json
import os
import resource
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import pytest

from conftest import BINARY, UNVERIFIED, on_backend, running_server

PASSWORD = "vic-password-1"


@pytest.fixture(scope="module")
def secured():
    data = tempfile.mkdtemp(prefix="outpost-identity-attacks-")
    subprocess.run(on_backend([BINARY, "users", "add", "vic", "--role", "viewer", "--data", data]),
                   env={**os.environ, "OUTPOST_PASSWORD": PASSWORD}, check=True, capture_output=True)
    with running_server(data, "--require-auth") as base:
        yield base


def raw_get(base, path, host):
    """A GET with `host` as its Host header, the body as JSON."""
    address = urllib.parse.urlsplit(base)
    with socket.create_connection((address.hostname, address.port), timeout=10) as connection:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode("latin-1"))
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.decode("latin-1"), json.loads(body)


def test_rest_info_does_not_name_a_host_the_caller_made_up(secured):
    """Was a finding (fixed: `public-url`, a Host check and `no-store`, docs/configuration.md): no Host was refused or checked: rest/info (and sharing/rest/info,
    portals/self) put whatever Host a request carries into owningSystemUrl and
    tokenServicesUrl, the URL the ArcGIS API for Python posts the user name and password to,
    with no Cache-Control and no Vary: Host. Behind a cache or proxy that does not key on Host
    one request poisons every client's sign-in to a phishing host. Fix: a configured public
    URL (or allowed hosts: refuse others with 400, as DNS-rebinding defences do), and
    Cache-Control: no-store on these answers."""
    for path in ["/arcgis/rest/info?f=json", "/arcgis/sharing/rest/info?f=json"]:
        head, info = raw_get(secured, path, "evil.example")
        named = json.dumps(info)
        assert "evil.example" not in named or "no-store" in head.lower(), f"{path} with Host evil.example: {named}"


def test_a_tls_portal_does_not_vouch_for_its_host_over_plain_http():
    """Was a finding (fixed): served over TLS, the exchange answered the portal token for
    serverUrl=http://<same host:port> (the scheme was not compared), so a client took the
    token to a plain-HTTP URL. The scheme is now compared with the one the server serves, and
    the token services answer `ssl: true` (the token goes back over HTTPS only)."""
    data = tempfile.mkdtemp(prefix="outpost-identity-tls-")
    subprocess.run(on_backend([BINARY, "users", "add", "vic", "--role", "viewer", "--data", data]),
                   env={**os.environ, "OUTPOST_PASSWORD": PASSWORD}, check=True, capture_output=True)
    with running_server(data, "--require-auth", tls=True) as base:
        def post(form):
            request = urllib.request.Request(f"{base}/sharing/rest/generateToken", data=urllib.parse.urlencode(form).encode())
            try:
                with urllib.request.urlopen(request, timeout=30, context=UNVERIFIED) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as error:
                return json.loads(error.read())
        signed = post({"username": "vic", "password": PASSWORD, "f": "json"})
        token = signed["token"]
        assert signed["ssl"] is True, signed
        root = urllib.parse.urlsplit(base)
        same = post({"token": token, "serverUrl": f"https://{root.netloc}/arcgis", "f": "json"})
        assert same.get("token") == token and same["ssl"] is True, same
        plain = post({"token": token, "serverUrl": f"http://{root.netloc}/arcgis", "f": "json"})
        assert "token" not in plain, f"a TLS portal vouched for http://{root.netloc}: {plain}"
        # Without its port, https://host is port 443: another server.
        elsewhere = post({"token": token, "serverUrl": f"https://{root.hostname}/arcgis", "f": "json"})
        assert "token" not in elsewhere and elsewhere["error"]["code"] == 400, elsewhere


def restore(folder, memory_bytes=3 << 30, timeout=30):
    """`outpost restore FOLDER` under an address-space limit; (returncode, output, seconds)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    started = time.time()
    result = subprocess.run([BINARY, "restore", folder, "--data", os.path.join(folder, "restored")], capture_output=True, text=True,
                            timeout=timeout, preexec_fn=limit)
    return result.returncode, result.stdout + result.stderr, time.time() - started


def test_a_huge_manifest_is_not_read_whole(tmp_path):
    """Was a finding (fixed: BackupManifest.load): the listing (and a restore) read every manifest.json whole into memory:
    a sparse file (no disk used) of 512 MiB takes the restore past 1 GB resident (measured:
    3 GiB, 37 s, 9.4 GB resident; under an address-space limit the read fails and the backup
    silently drops out of the listing). Refuse a manifest over a few MiB (stat first, or
    read at most that many bytes), and say so in the listing."""
    backup = tmp_path / "outpost-backup-20300101T000000.000Z"
    backup.mkdir()
    with open(backup / "manifest.json", "wb") as manifest:
        manifest.truncate(512 << 20)
    # The restore runs under a Python of its own, whose only child it is: RUSAGE_CHILDREN of
    # this process would be the largest of every server the session has run.
    measure = ("import resource, subprocess, sys, time; started = time.time(); "
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=120); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.time() - started); "
               "print(done.stderr[-300:], file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", measure, BINARY, "restore", str(tmp_path), "--data", str(tmp_path / "restored")],
                            capture_output=True, text=True, timeout=180)
    kilobytes, seconds = result.stdout.split()
    resident_mb, seconds = int(kilobytes) / 1024, float(seconds)
    assert resident_mb < 256 and seconds < 5, f"{resident_mb:.0f} MB resident after {seconds:.1f} s: {result.stderr[-300:]}"


def test_device_and_fifo_manifests_are_refused_quickly(tmp_path):
    """Held: a manifest that is /dev/zero or a FIFO nobody writes is not read (no hang)."""
    zero = tmp_path / "outpost-backup-20300101T000000.000Z"
    zero.mkdir()
    os.symlink("/dev/zero", zero / "manifest.json")
    fifo = tmp_path / "outpost-backup-20300101T000000.001Z"
    fifo.mkdir()
    os.mkfifo(tmp_path / "pipe")
    os.symlink(tmp_path / "pipe", fifo / "manifest.json")
    code, output, seconds = restore(str(tmp_path), timeout=20)
    assert code != 0 and seconds < 10, output
