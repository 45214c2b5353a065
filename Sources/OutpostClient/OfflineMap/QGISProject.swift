import Foundation

/// The offline map folder's QGIS project (`project.qgs`): every file of the folder as a QGIS
/// layer with a path relative to the project, so QGIS and QField open the folder as a ready
/// project (docs/offline-map-format.md). Pure: the layers are resolved by the caller.
enum QGISProject {
    struct Layer: Equatable {
        enum Kind: Equatable {
            /// A GeoPackage table (`file|layername=table`), `geometry` QGIS's name (`Point`, `Line`, `Polygon`) or nil for a table.
            case vector(table: String, geometry: String?, epsg: Int)
            case raster
            case vectorTiles
        }
        var id: String
        var name: String
        /// Relative to the folder, or absolute (a reference basemap on the device).
        var file: String
        var kind: Kind
    }

    /// The project, layers listed top first (QGIS draws the last at the bottom).
    static func xml(title: String, layers: [Layer]) -> String {
        var tree = ""
        var maps = ""
        for layer in layers {
            let source: String
            let provider: String
            let type: String
            var extra = ""
            switch layer.kind {
            case .vector(let table, let geometry, let epsg):
                source = "\(path(layer.file))|layername=\(table)"
                provider = "ogr"
                type = "vector"
                extra = "<srs><spatialrefsys><authid>EPSG:\(epsg)</authid></spatialrefsys></srs>"
                maps += "    <maplayer type=\"\(type)\"\(geometry.map { " geometry=\"\(escape($0))\"" } ?? " geometry=\"No geometry\"")>\n"
            case .raster:
                source = path(layer.file)
                provider = "gdal"
                type = "raster"
                extra = "<srs><spatialrefsys><authid>EPSG:3857</authid></spatialrefsys></srs>"
                maps += "    <maplayer type=\"\(type)\">\n"
            case .vectorTiles:
                source = "type=mbtiles&url=\(path(layer.file))"
                provider = "mbtilesvectortiles"
                type = "vector-tile"
                extra = "<srs><spatialrefsys><authid>EPSG:3857</authid></spatialrefsys></srs>"
                maps += "    <maplayer type=\"\(type)\">\n"
            }
            maps += """
                      <id>\(escape(layer.id))</id>
                      <datasource>\(escape(source))</datasource>
                      <layername>\(escape(layer.name))</layername>
                      <provider encoding="UTF-8">\(provider)</provider>
                      \(extra)
                    </maplayer>

                """
            tree += """
                    <layer-tree-layer id="\(escape(layer.id))" name="\(escape(layer.name))" source="\(escape(source))" providerKey="\(provider)" checked="Qt::Checked" expanded="1"/>

                """
        }
        return """
            <!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
            <qgis projectname="\(escape(title))" version="3.22.0-Outpost">
              <homePath path=""/>
              <title>\(escape(title))</title>
              <projectCrs><spatialrefsys><authid>EPSG:3857</authid></spatialrefsys></projectCrs>
              <layer-tree-group>
            \(tree)  </layer-tree-group>
              <projectlayers>
            \(maps)  </projectlayers>
              <properties><Paths><Absolute type="bool">false</Absolute></Paths></properties>
            </qgis>

            """
    }

    static func path(_ file: String) -> String { file.hasPrefix("/") ? file : "./\(file)" }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// QGIS's geometry name of an Esri geometry type.
    static func geometry(_ type: String?) -> String? {
        switch type {
        case "esriGeometryPoint", "esriGeometryMultipoint": "Point"
        case "esriGeometryPolyline": "Line"
        case "esriGeometryPolygon", "esriGeometryEnvelope": "Polygon"
        default: nil
        }
    }
}
