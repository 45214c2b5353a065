"""The Docker files, checked without a Docker engine (none runs here): docs/operations.md."""
import os
import re

from conftest import ROOT

DOCKER = os.path.join(ROOT, "docker")


def instructions(path):
    """Dockerfile instructions as (KEYWORD, argument text), continuation lines joined."""
    text = re.sub(r"\\\n", " ", open(path).read())
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line.strip() else "")
            for line in (raw.strip() for raw in text.splitlines()) if line and not line.startswith("#")]


def documented_keys():
    table = open(os.path.join(ROOT, "docs", "configuration.md")).read()
    return set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M))


def test_the_dockerfile_is_a_slim_multi_stage_build_running_unprivileged():
    steps = instructions(os.path.join(DOCKER, "Dockerfile"))
    known = {"FROM", "RUN", "COPY", "WORKDIR", "USER", "VOLUME", "EXPOSE", "ENV", "HEALTHCHECK", "ENTRYPOINT", "CMD", "ARG", "LABEL"}
    assert all(keyword in known for keyword, _ in steps), [k for k, _ in steps if k not in known]
    stages = [argument for keyword, argument in steps if keyword == "FROM"]
    assert len(stages) == 2 and stages[0].endswith(" AS build") and "slim" in stages[1]
    final = steps[[i for i, (k, _) in enumerate(steps) if k == "FROM"][1]:]
    runtime_install = " ".join(a for k, a in final if k == "RUN")
    assert "libspatialite" in runtime_install and "mod-spatialite" in runtime_install and "rm -rf /var/lib/apt/lists" in runtime_install
    assert any(k == "COPY" and a.startswith("--from=build") for k, a in final)
    assert [a for k, a in final if k == "USER"] == ["outpost"]
    assert any(k == "VOLUME" and "/data" in a for k, a in final) and any(k == "HEALTHCHECK" and "/health/ready" in a for k, a in final)
    assert all(k != "ADD" for k, _ in steps), "COPY, not ADD"
    # What the build copies exists; the release product it builds is the one CI builds.
    for keyword, argument in steps:
        if keyword == "COPY" and not argument.startswith("--from"):
            assert os.path.exists(os.path.join(ROOT, argument.split()[0])), argument
    assert any("swift build -c release --product outpost" in a for k, a in steps if k == "RUN")
    # Settings come in as OUTPOST_* variables naming documented keys; the exposed port is the one set.
    env = " ".join(a for k, a in final if k == "ENV")
    variables = dict(re.findall(r"OUTPOST_([A-Z_]+)=(\S+)", env))
    assert variables and all(name.lower().replace("_", "-") in documented_keys() for name in variables)
    assert any(k == "EXPOSE" and a == variables["PORT"] for k, a in final)


def test_the_compose_file_runs_the_image_with_a_data_volume():
    text = open(os.path.join(DOCKER, "compose.yaml")).read()
    assert "dockerfile: docker/Dockerfile" in text and "context: .." in text
    assert re.search(r"^\s+- outpost-data:/data$", text, re.M) and re.search(r"^volumes:\n  outpost-data:", text, re.M)
    assert '"8080:8080"' in text and "/health/ready" in text
    for name in re.findall(r"^\s+#?\s*OUTPOST_([A-Z_]+):", text, re.M):
        assert name.lower().replace("_", "-") in documented_keys(), name


def test_the_scaled_profile_runs_three_processes_on_postgis_and_object_storage_behind_nginx():
    text = open(os.path.join(DOCKER, "compose.yaml")).read()
    scaled = re.findall(r"^  ([a-z-]+):\n    profiles: \[\"scaled\"\]", text, re.M)
    assert sorted(scaled) == ["balancer", "objects", "outpost-scaled", "postgis"], scaled
    assert "replicas: 3" in text and "OUTPOST_DATABASE: postgres://outpost:outpost@postgis:5432/outpost" in text
    # The key pair the object store checks is the one Outpost signs with; the bucket folder exists.
    assert "--auth-key outpost,outpost-object-secret" in text and "mkdir -p /objects/outpost" in text
    assert "OUTPOST_OBJECT_STORE: http://outpost:outpost-object-secret@objects:9000/outpost" in text
    assert "- outpost-items:/data/items" in text and "- outpost-tiles:/data/tiles" in text and "condition: service_healthy" in text
    assert "- outpost-files:/data" not in text, "no folder shared whole"
    nginx = open(os.path.join(DOCKER, "nginx.conf")).read()
    assert "server outpost-scaled:8080" in nginx and "proxy_request_buffering off" in nginx and "client_max_body_size 512m" in nginx
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in text


def test_the_image_has_every_system_library_the_package_links():
    """Each system library target's apt package is installed to build, its runtime to run."""
    package = open(os.path.join(ROOT, "Package.swift")).read()
    dockerfile = open(os.path.join(DOCKER, "Dockerfile")).read()
    build, runtime = dockerfile.split("FROM debian:bookworm-slim")
    for providers in re.findall(r"providers: \[\.apt\(\[([^\]]*)\]\)\]", package):
        for name in re.findall(r'"([^"]+)"', providers):
            assert name in build, f"{name} is not installed to build"
    assert "libpq5" in runtime and "libspatialite7" in runtime
    # Foundation's XML parser is linked against the system's libxml2 even with a static stdlib.
    sources = [os.path.join(folder, name) for folder, _, names in os.walk(os.path.join(ROOT, "Sources")) for name in names if name.endswith(".swift")]
    if any("import FoundationXML" in open(path).read() for path in sources):
        assert "libxml2" in runtime.split(), "FoundationXML needs libxml2 at run time"


def test_every_serve_setting_is_documented():
    source = open(os.path.join(ROOT, "Sources", "outpost", "LayeredSettings.swift")).read()
    block = source[source.index("static let keys"):]
    keys = set(re.findall(r'\("([a-z-]+)", (?:true|false)\)', block))
    assert keys and keys == documented_keys(), keys ^ documented_keys()
