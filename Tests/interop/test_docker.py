"""What of the Docker files the image test (test_image.py) cannot run: the `source` stage,
which needs a Swift image, and nginx.conf, whose upstream exists only inside compose."""
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


def stage(steps, name):
    """The instructions of the stage `FROM … AS name`."""
    begins = [i for i, (keyword, argument) in enumerate(steps) if keyword == "FROM"]
    for first, after in zip(begins, begins[1:] + [len(steps)]):
        if steps[first][1].endswith(f" AS {name}"):
            return steps[first:after]
    raise AssertionError(f"no stage {name}")


def test_the_source_stage_builds_what_the_image_test_packs():
    """test_image.py builds the image from a binary scripts/test.sh made (`OUTPOST_BUILD=prebuilt`):
    the same product with the Swift runtime linked in. The `source` stage, which needs a Swift
    image, must build the release binary with the flags scripts/serve.sh uses, the prebuilt
    stage take that binary by default, and every file the stages copy be in the build context."""
    steps = instructions(os.path.join(DOCKER, "Dockerfile"))
    assert all(keyword != "ADD" for keyword, _ in steps), "COPY, not ADD"
    build = "swift build -c release --product outpost --static-swift-stdlib -Xlinker --strip-debug"
    assert any(build in argument for keyword, argument in stage(steps, "source") if keyword == "RUN")
    assert build in open(os.path.join(ROOT, "scripts", "serve.sh")).read()
    test_script = open(os.path.join(ROOT, "scripts", "test.sh")).read()
    assert "scripts/image-binary.sh" in test_script and "-static-stdlib" in open(os.path.join(ROOT, "scripts", "image-binary.sh")).read()
    prebuilt = stage(steps, "prebuilt")
    assert ("ARG", "OUTPOST_BINARY=.build/release/outpost") in prebuilt and ("COPY", "${OUTPOST_BINARY} /staging/outpost") in prebuilt
    ignored = [line.strip() for line in open(os.path.join(ROOT, ".dockerignore")) if line.strip() and not line.startswith("#")]
    assert ignored[0] == "*"
    assert "!.build/image/outpost" in ignored
    for keyword, argument in steps:
        if keyword == "COPY" and not argument.startswith("--from"):
            path = argument.split()[0].replace("${OUTPOST_BINARY}", ".build/release/outpost")
            assert f"!{path}" in ignored, f"{path} is not in the build context"
            if not path.startswith(".build"):
                assert os.path.exists(os.path.join(ROOT, path)), argument


def test_the_source_stage_installs_every_system_library_the_package_links():
    """Each system library target's apt package is installed to build. (That the runtime stage
    has what the binary loads, test_image.py shows by starting it.)"""
    package = open(os.path.join(ROOT, "Package.swift")).read()
    source = " ".join(argument for keyword, argument in stage(instructions(os.path.join(DOCKER, "Dockerfile")), "source") if keyword == "RUN")
    providers = re.findall(r"providers: \[\.apt\(\[([^\]]*)\]\)\]", package)
    assert providers
    for names in providers:
        for name in re.findall(r'"([^"]+)"', names):
            assert name in source.split(), f"{name} is not installed to build"


def test_every_serve_setting_is_documented():
    source = open(os.path.join(ROOT, "Sources", "outpost", "LayeredSettings.swift")).read()
    block = source[source.index("static let keys"):]
    keys = set(re.findall(r'\("([a-z-]+)", (?:true|false)\)', block))
    assert keys and keys == documented_keys(), keys ^ documented_keys()


def test_nginx_streams_sync_bodies_to_the_scaled_processes():
    nginx = open(os.path.join(DOCKER, "nginx.conf")).read()
    assert "server outpost-scaled:8080" in nginx and "proxy_request_buffering off" in nginx and "client_max_body_size 512m" in nginx
