"""The container image built and run for real (docs/operations.md, "The container image").

No Docker engine runs here, so podman does it, driven by the tool that runs the compose file
(podman-compose): the base image `debian:bookworm-slim` is made with debootstrap (minbase, as
Debian's own slim image is), `podman-compose build` builds docker/Dockerfile from the
repository root with the binary that scripts/test.sh made (`OUTPOST_BUILD=prebuilt`, `OUTPOST_BINARY`),
and `podman-compose up` starts it with its volume, published port and health check.
"""
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

import pytest

from conftest import ROOT, free_port
from test_docker import documented_keys

COMPOSE = os.path.join(ROOT, "docker", "compose.yaml")
BASE = "localhost/debian:bookworm-slim"
IMAGE = "localhost/outpost:latest"
BINARY = os.path.join(ROOT, ".build", "image", "outpost")
PROJECT = "outpost-image-test"
MISSING = [tool for tool in ("podman", "podman-compose", "debootstrap") if shutil.which(tool) is None]

pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"podman cannot be used here ({', '.join(MISSING)} not installed; scripts/setup.sh --with-clients installs them)")


@pytest.fixture(scope="module")
def podman_env(tmp_path_factory):
    """The environment podman runs in here. The sandbox has no CAP_SYS_RESOURCE, so containers get
    resource limits below the machine's instead of podman's higher defaults, and crun refuses
    its hybrid cgroup layout, so runc runs them. The image is built in docker format, the only
    one that keeps a HEALTHCHECK."""
    folder = tmp_path_factory.mktemp("podman")
    conf = folder / "containers.conf"
    conf.write_text('[containers]\ndefault_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]\n\n[engine]\nruntime = "runc"\n')
    return dict(os.environ, CONTAINERS_CONF=str(conf), BUILDAH_ISOLATION="chroot", BUILDAH_FORMAT="docker")


def run(command, env, **options):
    result = subprocess.run(command, env=env, capture_output=True, text=True, **options)
    assert result.returncode == 0, f"{shlex.join(command)} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def compose(project, *arguments):
    return ["podman-compose", "-f", COMPOSE, "-p", project, *arguments]


def ensure_base_image(env):
    """`debian:bookworm-slim`, made once per machine from Debian's packages."""
    if subprocess.run(["podman", "image", "exists", BASE], env=env).returncode == 0:
        return
    with tempfile.TemporaryDirectory() as folder:
        rootfs = os.path.join(folder, "rootfs")
        run(["debootstrap", "--variant=minbase", "bookworm", rootfs], env)
        tar = subprocess.Popen(["tar", "-C", rootfs, "-c", "."], stdout=subprocess.PIPE)
        run(["podman", "import", "--change", 'CMD ["bash"]', "-", BASE], env, stdin=tar.stdout)
        assert tar.wait() == 0


def remove_project(project, env):
    subprocess.run(compose(project, "down", "-v"), env=env, capture_output=True)
    subprocess.run(["podman", "volume", "prune", "-f", "--filter", f"label=io.podman.compose.project={project}"], env=env, capture_output=True)
    subprocess.run(["podman", "network", "rm", "-f", f"{project}_default"], env=env, capture_output=True)


@pytest.fixture(scope="module")
def image(podman_env):
    assert os.path.exists(BINARY), "scripts/test.sh makes it (scripts/image-binary.sh)"
    linked = run(["ldd", BINARY], podman_env)
    assert "libswiftCore" not in linked, "the image takes a binary with the Swift runtime linked in (--static-swift-stdlib)"
    sections = run(["readelf", "--section-headers", BINARY], podman_env)
    assert ".debug_info" not in sections and ".symtab" in sections, "no debug information, symbols kept"
    ensure_base_image(podman_env)
    run(compose(PROJECT, "--podman-build-args=--pull=never", "build", "--build-arg", "OUTPOST_BUILD=prebuilt",
                 "--build-arg", "OUTPOST_BINARY=.build/image/outpost", "outpost"), podman_env)
    # The images earlier runs built, now untagged, go; the layers this build reuses stay.
    run(["podman", "image", "prune", "-f"], podman_env)
    return json.loads(run(["podman", "image", "inspect", IMAGE], podman_env))[0]


@pytest.fixture(scope="module")
def service(image, podman_env):
    """The compose file's `outpost` service, up on a free loopback port, removed afterwards."""
    env = dict(podman_env, OUTPOST_PUBLISHED_PORT=str(free_port()))
    remove_project(PROJECT, env)
    yield env
    remove_project(PROJECT, env)


def test_the_image_runs_unprivileged_with_a_data_volume_a_health_check_and_documented_settings(image):
    assert "/health/ready" in " ".join(image["Healthcheck"]["Test"])
    image = image["Config"]
    assert image["User"] == "outpost" and image["WorkingDir"] == "/data"
    assert list(image["Volumes"]) == ["/data"] and list(image["ExposedPorts"]) == ["8080/tcp"]
    assert image["Entrypoint"] == ["outpost"] and image["Cmd"] == ["serve"]
    settings = dict(variable.split("=", 1) for variable in image["Env"] if variable.startswith("OUTPOST_"))
    assert settings["OUTPOST_PORT"] == "8080" and settings["OUTPOST_DATA"] == "/data"
    assert {name[len("OUTPOST_"):].lower().replace("_", "-") for name in settings} <= documented_keys()


def wait_until_healthy(container, env, timeout=90):
    """`podman healthcheck run` runs the container's health check (compose.yaml's, which is the
    image's HEALTHCHECK command) inside it."""
    deadline = time.monotonic() + timeout
    while True:
        check = subprocess.run(["podman", "healthcheck", "run", container], env=env, capture_output=True, text=True)
        if check.returncode == 0:
            return
        logs = subprocess.run(["podman", "logs", container], env=env, capture_output=True, text=True)
        assert time.monotonic() < deadline, f"not healthy: {check.stdout}{check.stderr}\n{logs.stdout[-2000:]}{logs.stderr[-2000:]}"
        time.sleep(1)


def request(env, path, form=None):
    url = f"http://127.0.0.1:{env['OUTPOST_PUBLISHED_PORT']}{path}"
    data = urllib.parse.urlencode(form).encode() if form else None
    with urllib.request.urlopen(url, data=data, timeout=30) as response:
        return json.loads(response.read())


def up(env):
    run(compose(PROJECT, "up", "-d", "outpost"), env)
    container = f"{PROJECT}_outpost_1"
    wait_until_healthy(container, env)
    return container


def test_the_composed_service_serves_keeps_its_data_in_the_volume_and_backs_it_up(service):
    container = up(service)
    assert run(["podman", "exec", container, "id", "-un"], service).strip() == "outpost"
    assert request(service, "/health/ready?f=json")
    services = request(service, "/arcgis/rest/services?f=json")["services"]
    assert {"name": "Demo", "type": "FeatureServer"} in services, services
    layer = "/arcgis/rest/services/Demo/FeatureServer/0"
    feature = {"geometry": {"x": 7.4474, "y": 46.948, "spatialReference": {"wkid": 4326}}, "attributes": {"name": "Bern"}}
    added = request(service, f"{layer}/applyEdits", {"f": "json", "adds": json.dumps([feature])})["addResults"][0]
    assert added["success"], added

    # A new container from the same image finds the edit in the volume.
    run(compose(PROJECT, "down"), service)
    container = up(service)
    found = request(service, f"{layer}/query?f=json&where=1%3D1&returnIdsOnly=true")["objectIds"]
    assert added["objectId"] in found

    # An online backup taken inside the running container.
    run(["podman", "exec", container, "outpost", "backup", "/data/backups"], service)
    listing = run(["podman", "exec", container, "sh", "-c", "cat /data/backups/*/manifest.json"], service)
    assert json.loads(listing)["files"], listing


def created(dry_run_output):
    """What `podman-compose --dry-run up` would create: service name -> the `podman create`
    arguments of each of its containers."""
    services = {}
    for line in dry_run_output.splitlines():
        if line.startswith("podman create "):
            arguments = shlex.split(line)
            service = next(label.split("=", 1)[1] for label in arguments if label.startswith("com.docker.compose.service="))
            services.setdefault(service, []).append(arguments)
    return services


def options(arguments, flag):
    return [arguments[i + 1] for i, argument in enumerate(arguments[:-1]) if argument == flag]


def test_the_scaled_profile_as_podman_compose_reads_it_wires_three_services_to_postgis_and_the_object_store(podman_env):
    """The scaled profile's images (PostGIS, rclone, nginx) cannot be pulled here: what
    podman-compose would create is read from its dry run."""
    project = "outpost-scaled-test"
    try:
        output = run(compose(project, "--dry-run", "up", "postgis", "objects", "outpost-scaled", "balancer"), podman_env)
    finally:
        remove_project(project, podman_env)
    containers = created(output)
    assert {service: len(each) for service, each in containers.items()} == {"postgis": 1, "objects": 1, "outpost-scaled": 3, "balancer": 1}, output
    assert len({next(a for a in each if a.startswith("--name=")) for each in containers["outpost-scaled"]}) == 3
    services = {service: each[0] for service, each in containers.items()}
    scaled = services["outpost-scaled"]
    environment = dict(value.split("=", 1) for value in options(scaled, "-e"))
    database = urllib.parse.urlsplit(environment["OUTPOST_DATABASE"])
    postgis = dict(value.split("=", 1) for value in options(services["postgis"], "-e"))
    assert (database.username, database.password, database.path[1:]) == (postgis["POSTGRES_USER"], postgis["POSTGRES_PASSWORD"], postgis["POSTGRES_DB"])
    assert database.hostname in options(services["postgis"], "--network-alias")
    store = urllib.parse.urlsplit(environment["OUTPOST_OBJECT_STORE"])
    assert store.hostname in options(services["objects"], "--network-alias")
    # The dry run prints the shell command after the image unquoted.
    objects = services["objects"]
    rclone = " ".join(objects[next(i for i, a in enumerate(objects) if a.startswith("rclone/rclone:")) + 1:])
    assert f"--auth-key {store.username},{store.password}" in rclone and f"mkdir -p /objects{store.path}" in rclone
    # Each process has its own /data; only portal item files and tile sets are shared.
    mounts = {volume.split(":", 1)[1] for volume in options(scaled, "-v")}
    assert mounts == {"/data/items", "/data/tiles"}, mounts
    nginx = options(services["balancer"], "-v")
    config = next(volume.split(":")[0] for volume in nginx if volume.split(":")[1] == "/etc/nginx/nginx.conf")
    assert os.path.samefile(config, os.path.join(ROOT, "docker", "nginx.conf"))
    assert "outpost-scaled" in options(scaled, "--network-alias")
    assert all("--healthcheck-command /bin/sh -c curl -fsS http://127.0.0.1:8080/health/ready" in " ".join(each) for each in containers["outpost-scaled"])
    assert f"server outpost-scaled:{environment.get('OUTPOST_PORT', '8080')}" in open(config).read()
