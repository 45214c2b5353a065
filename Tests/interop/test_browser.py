"""The services directory in a real browser (headless Chromium from Debian, driven by
Selenium): open the directory as a browser does (no `f`, `Accept: text/html`), follow links
to a layer, run the query form and see the features; the screenshots are checked as images
(drawn, not blank, the result table visible on screen), not only the page source."""
import io
import os

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from PIL import Image  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from conftest import ROOT, headless_chromium, needs_chromium, outpost, running_server  # noqa: E402

pytestmark = needs_chromium


@pytest.fixture
def browser():
    with headless_chromium("--window-size=1280,1600") as driver:
        yield driver


def submit(browser):
    """Submits the operation's form and waits for the answer's page."""
    browser.find_element(By.ID, "submit").click()
    WebDriverWait(browser, 30).until(lambda driver: driver.find_elements(By.XPATH, "//h2[text()='Result']"))


def run_query_form(browser, where, out_fields, order_by):
    """Follows the layer page's query link, fills the form as a person would and submits it."""
    browser.find_element(By.LINK_TEXT, "query").click()
    for name, value in (("where", where), ("outFields", out_fields), ("orderByFields", order_by)):
        field = browser.find_element(By.ID, name)
        field.clear()
        field.send_keys(value)
    submit(browser)


def drawn(png):
    """The screenshot as an image: its size and how many colours it shows."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.resize((320, 400)).getcolors(maxcolors=320 * 400)
    return image.size, len(colours)


def test_a_browser_follows_the_directory_to_a_layer_and_runs_a_query(server, browser, tmp_path):
    browser.get(f"{server}/services")
    assert browser.title.startswith("Services Directory")
    browser.find_element(By.LINK_TEXT, "Demo (FeatureServer)").click()
    assert "Demo" in browser.title
    # The service page lists its layers and the replica operations, each a link.
    assert browser.find_element(By.LINK_TEXT, "createReplica").is_displayed()
    browser.find_element(By.LINK_TEXT, "Trees (2)").click()
    assert browser.find_element(By.CSS_SELECTOR, "nav.breadcrumbs").text == "Home > Demo (FeatureServer) > 2"
    assert "species" in browser.find_element(By.CSS_SELECTOR, "table.properties").text
    run_query_form(browser, "species = 'Tilia cordata' AND height_m > 20", "species,height_m", "height_m DESC")

    table = browser.find_element(By.ID, "features")
    rows = table.find_elements(By.TAG_NAME, "tr")[1:]
    assert rows, "the query answered no features"
    heights = [float(row.find_elements(By.TAG_NAME, "td")[2].text) for row in rows]
    assert all(row.find_elements(By.TAG_NAME, "td")[1].text == "Tilia cordata" for row in rows)
    assert all(h > 20 for h in heights) and heights == sorted(heights, reverse=True)
    # The same query as JSON answers the same features: the page is rendered from it.
    assert browser.find_element(By.TAG_NAME, "h2").text == "Result"

    page = browser.get_screenshot_as_png()
    (tmp_path / "query.png").write_bytes(page)
    size, colours = drawn(page)
    assert size[0] >= 1000 and colours > 20, f"the page looks blank: {size}, {colours} colours"
    assert table.is_displayed() and table.size["height"] > 20 * len(rows) * 0.5
    size, colours = drawn(table.screenshot_as_png)
    assert colours > 5, "the result table is not drawn"
    if os.environ.get("OUTPOST_KEEP_SCREENSHOTS"):
        shutil.copy(tmp_path / "query.png", os.environ["OUTPOST_KEEP_SCREENSHOTS"])


def test_a_browser_creates_a_replica_with_the_form_and_sees_it_listed(own_server, browser):
    browser.get(f"{own_server}/services/Demo/FeatureServer/createReplica")
    for name, value in (("replicaName", "from-the-browser"), ("layers", "2"), ("geometry", "13.2,52.4,13.26,52.46"), ("inSR", "4326")):
        browser.find_element(By.ID, name).send_keys(value)
    submit(browser)
    replica_id = browser.find_element(By.XPATH, "//th[text()='replicaID']/following-sibling::td").text
    assert replica_id.startswith("{")
    browser.get(f"{own_server}/services/Demo/FeatureServer/replicas")
    browser.find_element(By.PARTIAL_LINK_TEXT, "from-the-browser").click()
    assert browser.find_element(By.XPATH, "//th[text()='replicaID']/following-sibling::td").text == replica_id
    # unRegisterReplica through its form; the list is empty again.
    browser.get(f"{own_server}/services/Demo/FeatureServer/unRegisterReplica")
    browser.find_element(By.ID, "replicaID").send_keys(replica_id)
    submit(browser)
    assert "success" in browser.find_element(By.TAG_NAME, "main").text
    browser.get(f"{own_server}/services/Demo/FeatureServer/replicas")
    assert not browser.find_elements(By.PARTIAL_LINK_TEXT, "from-the-browser")


def test_a_browser_walks_a_folder_down_to_its_layer_and_queries_it(browser, tmp_path):
    data = str(tmp_path / "data")
    outpost("import", os.path.join(ROOT, "testdata", "naturalearth_cities.geojson"), "--service", "Field/Cities",
            "--layer-name", "Cities", "--data", data)
    with running_server(data) as base:
        browser.get(f"{base}/rest/services")
        browser.find_element(By.LINK_TEXT, "Field").click()
        assert browser.find_element(By.CSS_SELECTOR, "nav.breadcrumbs").text == "Home > Field"
        browser.find_element(By.LINK_TEXT, "Field/Cities (FeatureServer)").click()
        browser.find_element(By.LINK_TEXT, "Cities (0)").click()
        assert browser.find_element(By.CSS_SELECTOR, "nav.breadcrumbs").text == "Home > Field > Cities (FeatureServer) > 0"
        run_query_form(browser, "name IN ('Bern', 'Vaduz')", "name", "name")
        rows = browser.find_element(By.ID, "features").find_elements(By.TAG_NAME, "tr")[1:]
        assert [row.find_elements(By.TAG_NAME, "td")[1].text for row in rows] == ["Bern", "Vaduz"]
        # The breadcrumbs lead back up to the folder.
        browser.find_element(By.LINK_TEXT, "Field").click()
        assert browser.find_element(By.LINK_TEXT, "Field/Cities (FeatureServer)").is_displayed()
        size, colours = drawn(browser.get_screenshot_as_png())
        assert size[0] >= 1000 and colours > 5, f"the page looks blank: {size}, {colours} colours"


# Map previews (docs/tiles.md, "Map preview"): Leaflet from Debian, served by Outpost.

RASTER_LAND, VECTOR_LAND = (238, 232, 213), (217, 207, 180)
FEATURE_COLOURS = [(230, 25, 75), (60, 180, 75), (67, 99, 216), (245, 130, 49)]


def share(image, colours, tolerance=12):
    """The share of an image's pixels (at full resolution: strokes are a pixel or two wide)
    near any of `colours`."""
    rgb = image.convert("RGB")
    counts = rgb.getcolors(maxcolors=rgb.width * rgb.height)
    near = sum(n for n, p in counts if any(all(abs(a - b) <= tolerance for a, b in zip(p, c)) for c in colours))
    return near / (rgb.width * rgb.height)


def preview(browser, url, tmp_path, name):
    """Opens a preview, waits until its tiles and features are drawn, returns (features, screenshot)."""
    browser.get(url)
    WebDriverWait(browser, 60).until(lambda driver: driver.execute_script("return document.body.dataset.ready") in ("true", "error"))
    assert browser.execute_script("return document.body.dataset.ready") == "true", browser.find_element(By.ID, "status").text
    png = browser.get_screenshot_as_png()
    (tmp_path / f"{name}.png").write_bytes(png)
    return int(browser.execute_script("return document.body.dataset.features")), Image.open(io.BytesIO(png))


def test_the_demo_map_draws_its_basemap_tiles_and_features_in_a_browser(server, browser, tmp_path):
    base = server.removesuffix("/rest")
    # The item's page links to the viewer, as ArcGIS's portal does.
    browser.get(f"{base}/sharing/rest/content/items/de3000000000000000000000000000a1?f=html")
    browser.find_element(By.ID, "preview").click()
    WebDriverWait(browser, 60).until(lambda driver: driver.execute_script("return document.body.dataset.ready") == "true")
    features, image = preview(browser, browser.current_url, tmp_path, "webmap")
    assert features > 1000, features
    # Land shows where no country polygon covers it (the world's copies beside the features).
    assert share(image, [RASTER_LAND]) > 0.01, "the basemap's tiles are not drawn"
    assert share(image, FEATURE_COLOURS) > 0.01, "the operational layers' features are not drawn"


def test_service_previews_draw_raster_tiles_vector_tiles_and_features(server, browser, tmp_path):
    features, raster = preview(browser, f"{server}/services/DemoBasemap/MapServer?f=jsapi", tmp_path, "raster")
    assert features == 0 and share(raster, [RASTER_LAND]) > 0.05
    features, vector = preview(browser, f"{server}/services/DemoVectorBasemap/VectorTileServer?f=jsapi", tmp_path, "vector")
    assert share(vector, [VECTOR_LAND]) > 0.05, "the vector tiles were not decoded and drawn"
    # A feature layer's preview, reached from its directory page.
    browser.get(f"{server}/services/Demo/FeatureServer/0?f=html")
    browser.find_element(By.ID, "preview").click()
    features, layer = preview(browser, browser.current_url, tmp_path, "layer")
    assert features == 243 and share(layer, FEATURE_COLOURS) > 0.001
    assert share(layer, [RASTER_LAND, VECTOR_LAND]) < 0.01, "a layer's preview draws only its features"
