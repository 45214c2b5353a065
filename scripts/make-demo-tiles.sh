#!/usr/bin/env bash
# Builds the demo tile sets under testdata/ from the Natural Earth demo data, with GDAL
# (gdal-bin). Run once; the results are committed (docs/tiles.md). Deterministic for one GDAL.
#   testdata/demo-raster.mbtiles  PNG tiles, Web Mercator, zoom 0-5: water, land, cities
#   testdata/demo-vector.mbtiles  Mapbox vector tiles (countries, cities), zoom 0-5
set -euo pipefail
cd "$(dirname "$0")/../testdata"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
world=20037508.342789244

ogr2ogr -f GPKG "$work/land.gpkg" naturalearth_countries.geojson -t_srs EPSG:3857 -clipsrc -180 -85.0511 180 85.0511 -nln land
ogr2ogr -f GPKG "$work/cities.gpkg" naturalearth_cities.geojson -t_srs EPSG:3857 -nln cities
ogr2ogr -f GPKG -update "$work/cities.gpkg" "$work/cities.gpkg" -dialect SQLite -nln dots \
    -sql "SELECT ST_Buffer(geom, 60000) AS geom FROM cities"

# One 8192-pixel world (zoom 5 at 256-pixel tiles): water, then land, then city dots.
gdal_create -q -of GTiff -outsize 8192 8192 -bands 3 -ot Byte -burn 170 -burn 211 -burn 223 \
    -a_srs EPSG:3857 -a_ullr -$world $world $world -$world "$work/world.tif"
gdal_rasterize -q -b 1 -b 2 -b 3 -burn 238 -burn 232 -burn 213 -l land "$work/land.gpkg" "$work/world.tif"
gdal_rasterize -q -b 1 -b 2 -b 3 -burn 200 -burn 60 -burn 50 -l dots "$work/cities.gpkg" "$work/world.tif"

rm -f demo-raster.mbtiles demo-vector.mbtiles
gdal_translate -q -of MBTILES -co TILE_FORMAT=PNG8 -co NAME="Outpost demo basemap" \
    -co DESCRIPTION="Natural Earth countries and cities (public domain)" "$work/world.tif" demo-raster.mbtiles
gdaladdo -q -r average demo-raster.mbtiles 2 4 8 16 32

ogr2ogr -f GPKG "$work/layers.gpkg" naturalearth_countries.geojson -nln countries -clipsrc -180 -85.0511 180 85.0511
ogr2ogr -f GPKG -update "$work/layers.gpkg" naturalearth_cities.geojson -nln cities -clipsrc -180 -85.0511 180 85.0511
ogr2ogr -f MBTILES demo-vector.mbtiles "$work/layers.gpkg" \
    -dsco MINZOOM=0 -dsco MAXZOOM=5 -dsco NAME="Outpost demo vector basemap" -dsco COMPRESS=YES
ls -l demo-raster.mbtiles demo-vector.mbtiles
