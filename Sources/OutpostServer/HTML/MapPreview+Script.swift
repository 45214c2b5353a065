extension MapPreview {
    /// The preview's script (`/arcgis/rest/static/preview.js`): draws `config` with Leaflet —
    /// raster tile services as tile layers, vector tile services decoded in the page (a small
    /// Mapbox Vector Tile reader drawing on canvas tiles), feature layers from their GeoJSON
    /// queries — then marks the page ready (`body[data-ready]`, `data-features`) for tests.
    static let script = #"""
        "use strict";
        (function () {
          const config = JSON.parse(document.getElementById("preview-config").textContent);
          const status = document.getElementById("status");
          if (!window.L) {
            status.textContent = "Leaflet is not installed on the server (Debian: apt install libjs-leaflet).";
            document.body.dataset.ready = "error";
            return;
          }
          const withToken = (url) => config.token ? url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(config.token) : url;
          // No fading: a page marked ready shows its tiles fully drawn.
          const map = L.map("map", { attributionControl: false, fadeAnimation: false, zoomAnimation: false });
          const [west, south, east, north] = config.extent;
          map.fitBounds([[south, west], [north, east]]);
          let pending = 0, features = 0;
          const done = () => {
            pending -= 1;
            if (pending === 0) {
              document.body.dataset.features = String(features);
              status.textContent = config.featureLayers.length ? features + " features" : "tiles drawn";
              // Ready once the browser has painted what was added.
              requestAnimationFrame(() => requestAnimationFrame(() => { document.body.dataset.ready = "true"; }));
            }
          };
          const palette = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080"];

          for (const url of config.rasterTiles) {
            pending += 1;
            const layer = L.tileLayer(withToken(url + "/tile/{z}/{y}/{x}"), { maxNativeZoom: config.maxZoom, tileSize: 256 });
            layer.once("load", done);
            layer.addTo(map);
          }

          // Mapbox Vector Tiles: protobuf read by hand, geometry commands drawn on a canvas.
          function readVarint(view, state) {
            let result = 0, shift = 0, byte;
            do { byte = view[state.at++]; result += (byte & 0x7f) * Math.pow(2, shift); shift += 7; } while (byte & 0x80);
            return result;
          }
          function fields(view, start, end, visit) {
            const state = { at: start };
            while (state.at < end) {
              const key = readVarint(view, state), field = Math.floor(key / 8), type = key & 7;
              if (type === 0) { visit(field, readVarint(view, state)); }
              else if (type === 2) { const length = readVarint(view, state); visit(field, [state.at, state.at + length]); state.at += length; }
              else if (type === 5) { state.at += 4; } else if (type === 1) { state.at += 8; } else { return; }
            }
          }
          function packed(view, [start, end]) {
            const state = { at: start }, values = [];
            while (state.at < end) values.push(readVarint(view, state));
            return values;
          }
          function drawTile(view, context, size) {
            let index = 0;
            fields(view, 0, view.length, (field, layerRange) => {
              if (field !== 3) return;
              let extent = 4096;
              const shapes = [];
              fields(view, layerRange[0], layerRange[1], (f, value) => {
                if (f === 5) extent = value;
                if (f !== 2) return;
                let type = 0, geometry = [];
                fields(view, value[0], value[1], (g, v) => { if (g === 3) type = v; if (g === 4) geometry = packed(view, v); });
                shapes.push([type, geometry]);
              });
              const colour = palette[(index++) % palette.length];
              for (const [type, geometry] of shapes) {
                const scale = size / extent;
                let x = 0, y = 0, i = 0;
                context.beginPath();
                while (i < geometry.length) {
                  const command = geometry[i] & 7, count = geometry[i] >> 3;
                  i += 1;
                  if (command === 7) { context.closePath(); continue; }
                  for (let n = 0; n < count; n++) {
                    const dx = geometry[i], dy = geometry[i + 1];
                    i += 2;
                    x += (dx >> 1) ^ -(dx & 1); y += (dy >> 1) ^ -(dy & 1);
                    if (type === 1) { context.moveTo(x * scale + 2, y * scale); context.arc(x * scale, y * scale, 2, 0, 2 * Math.PI); }
                    else if (command === 1) context.moveTo(x * scale, y * scale); else context.lineTo(x * scale, y * scale);
                  }
                }
                if (type === 3) { context.fillStyle = "#d9cfb4"; context.fill("evenodd"); context.strokeStyle = "#8a7f66"; context.stroke(); }
                else if (type === 2) { context.strokeStyle = colour; context.stroke(); }
                else { context.fillStyle = "#c85a3c"; context.fill(); }
              }
            });
          }
          const VectorTiles = L.GridLayer.extend({
            createTile: function (coords, ready) {
              const canvas = document.createElement("canvas");
              const size = this.getTileSize();
              canvas.width = size.x; canvas.height = size.y;
              fetch(withToken(this.options.url + "/tile/" + coords.z + "/" + coords.y + "/" + coords.x + ".pbf"))
                .then((response) => response.ok ? response.arrayBuffer() : new ArrayBuffer(0))
                .then((buffer) => { drawTile(new Uint8Array(buffer), canvas.getContext("2d"), size.x); ready(null, canvas); })
                .catch((error) => ready(error, canvas));
              return canvas;
            }
          });
          for (const url of config.vectorTiles) {
            pending += 1;
            const layer = new VectorTiles({ url: url, maxNativeZoom: config.maxZoom });
            layer.once("load", done);
            layer.addTo(map);
          }

          async function featureLayers(url) {
            if (/\/FeatureServer\/\d+$/.test(url)) return [url];
            const service = await (await fetch(withToken(url + "?f=json"))).json();
            return (service.layers || []).map((layer) => url + "/" + layer.id);
          }
          const drawn = L.featureGroup().addTo(map);
          config.featureLayers.forEach((url, index) => {
            pending += 1;
            const colour = palette[index % palette.length];
            featureLayers(url).then((layers) => Promise.all(layers.map(async (layerURL) => {
              const query = layerURL + "/query?where=1%3D1&outFields=*&outSR=4326&f=geojson&resultRecordCount=" + config.maxFeatures;
              const collection = await (await fetch(withToken(query))).json();
              features += (collection.features || []).length;
              L.geoJSON(collection, {
                style: { color: colour, weight: 2, fillOpacity: 0.35 },
                pointToLayer: (feature, latlng) => L.circleMarker(latlng, { radius: 4, color: colour, fillColor: colour, fillOpacity: 0.9 })
              }).addTo(drawn);
            }))).catch((error) => { status.textContent = String(error); }).finally(done);
          });
          if (pending === 0) { pending = 1; done(); }
        })();
        """#
}
