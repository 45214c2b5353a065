"""Real Outpost servers on loopback for the interop tests (seeded demo data)."""
import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("OUTPOST_BIN", os.path.join(ROOT, ".build", "debug", "outpost"))

# A real browser for the browser tests: headless Chromium from Debian, driven by Selenium.
CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
needs_chromium = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="chromium and chromium-driver are installed by scripts/setup.sh")


@contextlib.contextmanager
def headless_chromium(*arguments):
    """A headless Chromium (Selenium's driver), quit on leaving; `arguments` add to the defaults."""
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server",
                     "--disable-background-networking", "--disable-component-update", *arguments):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


UNVERIFIED = ssl.create_default_context()
UNVERIFIED.check_hostname = False
UNVERIFIED.verify_mode = ssl.CERT_NONE


def eventually(check, what, seconds=15, every=0.2):
    """`check()`'s value once it is true, polled until `seconds` pass (then the test fails)."""
    deadline = time.time() + seconds
    while True:
        value = check()
        if value:
            return value
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(every)


# Each pytest-xdist worker (scripts/test.sh runs three) takes its servers' ports from a range
# of its own below the ephemeral ports (32768 up, Linux's default): a port found free here
# then cannot be handed to another worker's server, nor to an outgoing connection, before this
# test's server binds it.
PORTS_PER_WORKER = 1500
PORT_LOCK = threading.Lock()
PORT_NEXT = [0]


def free_port():
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    first = 20000 + int(worker[2:] or 0) % 8 * PORTS_PER_WORKER
    with PORT_LOCK:
        for _ in range(PORTS_PER_WORKER):
            port = first + PORT_NEXT[0] % PORTS_PER_WORKER
            PORT_NEXT[0] += 1
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
                return port
    raise RuntimeError(f"no free port in {first}-{first + PORTS_PER_WORKER - 1}")


# `OUTPOST_INTEROP_BACKEND=postgres` serves every test's data from a new PostgreSQL database
# (on OUTPOST_TEST_POSTGRES) instead of SpatiaLite: the same tests against both backends.
BACKEND = os.environ.get("OUTPOST_INTEROP_BACKEND", "spatialite")


# The demo's feature services, on either backend.
DEMO_FEATURE_SERVICES = ["Demo", "Parcels"]
# What a map area of the demo map packages: one GeoPackage per feature service, and the basemap.
DEMO_AREA_PACKAGES = 1 + len(DEMO_FEATURE_SERVICES)
DEMO_OFFLINE_FILES = {f"data/{name}.gpkg" for name in DEMO_FEATURE_SERVICES} | {"tiles/DemoBasemap.mbtiles"}

DATABASES = {}
DATABASES_LOCK = threading.Lock()


def database_of(data):
    """The database a data folder's rows live in on PostgreSQL: made empty on first use, then
    the same for every command and server given that folder (servers may start from threads)."""
    data = os.path.realpath(data)
    with DATABASES_LOCK:
        return made_database(data)


def made_database(data):
    if data not in DATABASES:
        admin = os.environ.get("OUTPOST_TEST_POSTGRES")
        if not admin:
            pytest.fail("no test PostgreSQL: run scripts/test.sh, or set OUTPOST_TEST_POSTGRES")
        name = "outpost_interop_" + uuid.uuid4().hex[:12]
        subprocess.run(["psql", "-q", admin, "-c", f"CREATE DATABASE {name}"], check=True)
        DATABASES[data] = admin.rsplit("/", 1)[0] + "/" + name
    return DATABASES[data]


def on_backend(arguments):
    """A command's arguments with `--database` added for its `--data` folder on PostgreSQL."""
    arguments = list(arguments)
    if BACKEND == "postgres" and "--data" in arguments and "--database" not in arguments:
        arguments += ["--database", database_of(arguments[arguments.index("--data") + 1])]
    return arguments


def spatialite_pass_only(reason):
    """Marks a test that runs in the SpatiaLite pass only (it makes its PostgreSQL database itself)."""
    return pytest.mark.skipif(BACKEND == "postgres", reason=f"SpatiaLite pass only: {reason}")


@contextlib.contextmanager
def running_server(data=None, *extra, tls=False, binary=BINARY):
    """Starts `outpost serve` on a free port, waits until it answers, yields `<scheme>://host:port/arcgis`."""
    data = data or tempfile.mkdtemp(prefix="outpost-interop-")
    port = free_port()
    arguments = on_backend([binary, "serve", "--data", data, "--port", str(port), "--testdata", os.path.join(ROOT, "testdata"), *extra])
    if tls:
        arguments.append("--self-signed")
    # The log goes to a file: a pipe nobody reads would fill up and stall the server.
    log = open(os.path.join(data, "server.log"), "wb")
    process = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT)
    base = f"{'https' if tls else 'http'}://127.0.0.1:{port}/arcgis"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/rest/info?f=json", timeout=2, context=UNVERIFIED if tls else None).read()
                break
            except OSError:
                if process.poll() is not None or time.time() > deadline:
                    output = open(os.path.join(data, "server.log"), errors="replace").read()
                    raise RuntimeError(f"outpost did not start:\n{output}")
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


def outpost(*arguments, check=True):
    """Runs the `outpost` command; with `check`, it must succeed."""
    result = subprocess.run([BINARY, *on_backend(arguments)], capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture()
def own_server():
    """A server of the test's own, for tests that change data the shared server's counts see."""
    with running_server() as base:
        yield f"{base}/rest"


# A test file's own servers: files run on several workers in an order of the scheduler's
# (pytest-xdist), so one file's edits must not reach another's counts.
@pytest.fixture(scope="module")
def server():
    with running_server() as base:
        yield f"{base}/rest"


@pytest.fixture(scope="module")
def tls_server():
    """HTTPS with a self-signed certificate: the ArcGIS API for Python talks HTTPS only."""
    with running_server(tls=True) as base:
        yield base


@pytest.fixture(scope="session", autouse=True)
def every_geopackage_is_valid(tmp_path_factory):
    """After the run: every GeoPackage the tests produced (replicas, deltas, files edited by
    GDAL) passes GDAL's validate_gpkg.py and opens in ogrinfo."""
    yield
    import glob

    validator = glob.glob("/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py")
    if not validator:
        return
    files = [p for p in glob.glob(os.path.join(str(tmp_path_factory.getbasetemp()), "**", "*.gpkg"), recursive=True)
             if not p.endswith(".partial")]
    problems = []
    for path in files:
        result = subprocess.run(["/usr/bin/python3", validator[0], path], capture_output=True, text=True)
        if result.returncode != 0:
            problems.append(f"{path}: {result.stdout}{result.stderr}")
        # Tile pyramids (GDAL's, imported as tile services) are rasters: gdalinfo opens them.
        tiles_only = subprocess.run(["sqlite3", path, "SELECT count(*) FROM gpkg_contents WHERE data_type != 'tiles'"],
                                    capture_output=True, text=True).stdout.strip() == "0"
        info = subprocess.run(["gdalinfo" if tiles_only else "ogrinfo", *([] if tiles_only else ["-ro", "-so", "-al"]), path],
                              capture_output=True, text=True)
        if info.returncode != 0 or "ERROR" in info.stdout:
            problems.append(f"{path}: {'gdalinfo' if tiles_only else 'ogrinfo'} failed: {info.stderr}")
    assert not problems, "\n".join(problems)

