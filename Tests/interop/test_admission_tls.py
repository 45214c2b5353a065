"""Bodies are admitted by the same rules over TLS as over plain HTTP (issue 43): who asks and how
much they send are decided before the body is read, and a refused body is not read on, whether
the socket speaks TLS or not. Everything goes to 127.0.0.1; every loop is bounded."""
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request

import pytest

from conftest import BINARY, UNVERIFIED, on_backend, running_server

MiB = 1024 * 1024
BOUNDARY = "----outpost-tls-admission"


@pytest.fixture(scope="module", params=["plain", "tls"])
def server(request):
    data = tempfile.mkdtemp(prefix="outpost-admission-")
    environment = {**os.environ, "OUTPOST_PASSWORD": "editor-password-1"}
    subprocess.run(on_backend([BINARY, "users", "add", "eve", "--role", "editor", "--data", data]), env=environment, check=True, capture_output=True)
    tls = request.param == "tls"
    with running_server(data, "--require-auth", "--max-upload-mb", "16", "--idle-timeout-seconds", "5", tls=tls) as base:
        answer = json.loads(urllib.request.urlopen(urllib.request.Request(
            f"{base}/tokens/generateToken", data=b"f=json&username=eve&password=editor-password-1"),
            context=UNVERIFIED if tls else None, timeout=30).read())
        yield {"base": base, "tls": tls, "port": int(base.split(":")[2].split("/")[0]), "token": answer["token"]}
    shutil.rmtree(data, ignore_errors=True)


def connect(server):
    raw = socket.create_connection(("127.0.0.1", server["port"]), timeout=10)
    return UNVERIFIED.wrap_socket(raw, server_hostname="127.0.0.1") if server["tls"] else raw


def send_until_refused(server, head, chunk, total):
    """Sends `head` then `chunk` up to `total` bytes until the server stops taking them (an error,
    or no progress for 5 s); returns (body bytes sent, the answer read afterwards)."""
    sent = 0
    connection = connect(server)
    connection.settimeout(5)
    try:
        connection.sendall(head)
        while sent < total:
            connection.sendall(chunk)
            sent += len(chunk)
    except (OSError, ssl.SSLError):
        pass
    answer = b""
    try:
        connection.settimeout(5)
        while True:
            more = connection.recv(65536)
            if not more:
                break
            answer += more
    except (OSError, ssl.SSLError):
        pass
    connection.close()
    return sent, answer


def multipart_head(server, fields, length=None):
    body = "".join(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n" for name, value in fields)
    body += f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    framing = f"Content-Length: {length}\r\n" if length is not None else "Transfer-Encoding: chunked\r\n"
    head = (f"POST /arcgis/rest/services/Demo/FeatureServer/uploads/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: multipart/form-data; boundary={BOUNDARY}\r\n{framing}\r\n")
    return head.encode(), body.encode()


def chunked(data):
    return b"%x\r\n" % len(data) + data + b"\r\n"


def test_a_tokenless_body_is_refused_and_not_read_on(server):
    """499 from the head and the first part; the client can then send little more (TCP's own
    buffers, a few MiB) before the server stops taking bytes: not the 512 MiB it offered."""
    head, preamble = multipart_head(server, [("f", "json")])
    sent, answer = send_until_refused(server, head + chunked(preamble), chunked(b"A" * MiB), 512 * MiB)
    assert b" 499 " in answer.split(b"\r\n")[0] or b'"code":499' in answer, answer[:300]
    assert sent < 64 * MiB, f"{sent / MiB:.0f} MiB read of a refused body"


def test_a_body_over_the_limit_is_refused_and_not_read_on(server):
    head, preamble = multipart_head(server, [("f", "json"), ("token", server["token"])])
    sent, answer = send_until_refused(server, head + chunked(preamble), chunked(b"A" * MiB), 512 * MiB)
    assert b" 413 " in answer.split(b"\r\n")[0], answer[:300]
    assert sent < 64 * MiB, f"{sent / MiB:.0f} MiB read past a 16 MiB limit"


def test_a_token_field_first_admits_an_upload_sent_in_one_piece(server):
    """The token as the first form field, then a 1 MiB file, written at once: the server takes
    the token however the bytes are cut into reads (TLS hands larger pieces than a socket)."""
    file_bytes = b"B" * MiB
    _, preamble = multipart_head(server, [("f", "json"), ("token", server["token"])])
    body = preamble + file_bytes + f"\r\n--{BOUNDARY}--\r\n".encode()
    head, _ = multipart_head(server, [], length=len(body))
    for attempt in range(5):
        connection = connect(server)
        connection.sendall(head + body)
        answer = b""
        connection.settimeout(30)
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            more = connection.recv(65536)
            if not more:
                break
            answer += more
        connection.close()
        assert b" 200 " in answer.split(b"\r\n")[0] and b'"itemID"' in answer, f"attempt {attempt}: {answer[:300]}"
