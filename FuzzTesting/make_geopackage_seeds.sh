#!/usr/bin/env bash
# Writes the FuzzGeoPackage seeds (Corpus/FuzzGeoPackage/*.gpkg) with the sqlite3 shell:
# small replica-shaped GeoPackages (docs/replica-format.md) with 512-byte pages, each well
# under 64 KiB: a replica file with its change log, an upload delta, a download delta.
set -euo pipefail
cd "$(dirname "$0")/Corpus/FuzzGeoPackage"
rm -f replica-with-log.gpkg upload-delta.gpkg download-delta.gpkg
common() {
    cat <<'SQL'
PRAGMA page_size = 512;
PRAGMA application_id = 1196444487;
PRAGMA user_version = 10400;
CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')), min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', NULL), ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', NULL), ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84"]', NULL);
CREATE TABLE outpost_sync_replica (replica_id TEXT NOT NULL PRIMARY KEY, replica_name TEXT NOT NULL, service_url TEXT NOT NULL, service_name TEXT NOT NULL, sync_model TEXT NOT NULL, target_type TEXT NOT NULL, sync_direction TEXT NOT NULL, attachments_sync_direction TEXT NOT NULL, return_attachments INTEGER NOT NULL, replica_server_gen INTEGER NOT NULL, spatial_reference INTEGER NOT NULL, geometry TEXT, creation_date INTEGER NOT NULL, last_sync_date INTEGER, format_version INTEGER NOT NULL, service_definition TEXT NOT NULL, applying_server_changes INTEGER NOT NULL DEFAULT 0);
CREATE TABLE outpost_sync_layers (layer_id INTEGER NOT NULL PRIMARY KEY, layer_name TEXT NOT NULL, table_name TEXT NOT NULL UNIQUE, attachment_table TEXT, mapping_table TEXT, server_gen INTEGER NOT NULL, query_option TEXT NOT NULL, use_geometry INTEGER NOT NULL, include_related INTEGER NOT NULL, where_clause TEXT, layer_definition TEXT NOT NULL);
CREATE TABLE outpost_sync_changes (change_id INTEGER PRIMARY KEY AUTOINCREMENT, layer_id INTEGER NOT NULL, item TEXT NOT NULL, global_id TEXT NOT NULL, object_id INTEGER, operation TEXT NOT NULL, changed_at TEXT NOT NULL DEFAULT '2026-11-27T11:00:00.000Z');
INSERT INTO outpost_sync_replica VALUES ('{5B0E4B3A-2C1D-4E5F-8A9B-0C1D2E3F4A5B}', 'trees_replica', 'https://example.com/arcgis/rest/services/Trees/FeatureServer', 'Trees', 'perReplica', 'client', 'bidirectional', 'bidirectional', 1, 7, 4326, NULL, 1795777200000, NULL, 1, '{"currentVersion":11.1}', 0);
INSERT INTO outpost_sync_layers VALUES (0, 'Trees', 'Trees', 'Trees__ATTACH', 'Trees__ATTACH_MAP', 7, 'useFilter', 1, 0, NULL, '{"id":0,"name":"Trees","geometryType":"esriGeometryPoint","objectIdField":"OBJECTID","globalIdField":"GlobalID","fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"GlobalID","type":"esriFieldTypeGlobalID"},{"name":"name","type":"esriFieldTypeString"},{"name":"planted","type":"esriFieldTypeDate"}]}');
INSERT INTO gpkg_contents(table_name, data_type, identifier, srs_id) VALUES ('Trees', 'features', 'Trees', 4326);
INSERT INTO gpkg_geometry_columns VALUES ('Trees', 'shape', 'POINT', 4326, 0, 0);
CREATE TABLE Trees (OBJECTID INTEGER PRIMARY KEY AUTOINCREMENT, GlobalID TEXT(38) NOT NULL UNIQUE, name TEXT(50), height DOUBLE, planted DATETIME, shape POINT);
CREATE TABLE Trees__ATTACH (id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL, content_type TEXT NOT NULL, ATTACHMENTID INTEGER, GLOBALID TEXT(38), REL_GLOBALID TEXT(38) NOT NULL, ATT_NAME TEXT NOT NULL, DATA_SIZE INTEGER NOT NULL, KEYWORDS TEXT);
CREATE TABLE Trees__ATTACH_MAP (base_id INTEGER NOT NULL, related_id INTEGER NOT NULL);
INSERT INTO Trees VALUES (1, '{11111111-1111-1111-1111-111111111111}', 'Oak', 12.5, '2020-03-01T00:00:00.000Z', X'47500001E6100000010100000000000000000024C00000000000004940');
INSERT INTO Trees VALUES (2, '{22222222-2222-2222-2222-222222222222}', 'Elm', NULL, NULL, X'47500011E61000000101000000000000000000F87F000000000000F87F');
INSERT INTO Trees__ATTACH VALUES (1, X'89504E470D0A1A0A', 'image/png', NULL, '{33333333-3333-3333-3333-333333333333}', '{11111111-1111-1111-1111-111111111111}', 'bark.png', 8, 'photo');
INSERT INTO Trees__ATTACH_MAP VALUES (1, 1);
SQL
}
{
    common
    cat <<'SQL'
INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation) VALUES
    (0, 'feature', '{11111111-1111-1111-1111-111111111111}', 1, 'insert'), (0, 'feature', '{11111111-1111-1111-1111-111111111111}', 1, 'update'),
    (0, 'feature', '{44444444-4444-4444-4444-444444444444}', 4, 'delete'), (0, 'attachment', '{33333333-3333-3333-3333-333333333333}', 1, 'insert'),
    (0, 'feature', '{22222222-2222-2222-2222-222222222222}', 2, 'update');
SQL
} | sqlite3 replica-with-log.gpkg
delta_tables="CREATE TABLE outpost_sync_delta (kind TEXT NOT NULL, generation INTEGER NOT NULL, response_type TEXT, created_at TEXT NOT NULL DEFAULT '2026-11-27T11:00:00.000Z');
CREATE TABLE outpost_sync_delta_layers (layer_id INTEGER NOT NULL PRIMARY KEY, since_gen INTEGER NOT NULL, replaces_rows INTEGER NOT NULL);"
{
    common
    echo "$delta_tables"
    cat <<'SQL'
INSERT INTO outpost_sync_delta(kind, generation) VALUES ('upload', 7);
INSERT INTO outpost_sync_delta_layers VALUES (0, 5, 0);
INSERT INTO outpost_sync_changes(layer_id, item, global_id, object_id, operation) VALUES
    (0, 'feature', '{11111111-1111-1111-1111-111111111111}', 1, 'insert'), (0, 'attachment', '{33333333-3333-3333-3333-333333333333}', 1, 'insert');
SQL
} | sqlite3 upload-delta.gpkg
{
    common
    echo "$delta_tables"
    cat <<'SQL'
CREATE TABLE outpost_sync_edit_results (layer_id INTEGER NOT NULL, item TEXT NOT NULL, operation TEXT NOT NULL, global_id TEXT, object_id INTEGER,
    success INTEGER NOT NULL, error_code INTEGER, error_description TEXT);
INSERT INTO outpost_sync_delta VALUES ('download', 9, 'esriReplicaResponseTypeEdits', '2026-11-27T11:00:00.000Z');
INSERT INTO outpost_sync_delta_layers VALUES (0, 7, 1);
INSERT INTO outpost_sync_edit_results VALUES (0, 'feature', 'insert', '{11111111-1111-1111-1111-111111111111}', 1, 1, NULL, NULL),
    (0, 'feature', 'update', '{55555555-5555-5555-5555-555555555555}', NULL, 0, 1018, 'no such feature');
SQL
} | sqlite3 download-delta.gpkg
for file in replica-with-log.gpkg upload-delta.gpkg download-delta.gpkg; do sqlite3 "$file" VACUUM; done
