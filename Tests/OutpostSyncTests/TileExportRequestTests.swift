import OutpostGeometry
import OutpostWire
import Testing

@testable import OutpostSync

/// What an `exportTiles` form asks for (docs/tiles.md, "Export requests"), and how an export
/// job reports itself in the geoprocessing form.
@Suite struct TileExportRequestTests {
    static func parse(_ pairs: [(String, String)], kind: TileSet.Kind = .raster) throws(ArcGISError) -> TileExportRequest {
        try TileExportRequest.parse(RequestParameters(pairs), kind: kind)
    }

    @Test func defaultsAreEveryLevelTheFullExtentAndATilePackage() throws {
        #expect(try Self.parse([]) == TileExportRequest(format: .tpkx))
        #expect(try Self.parse([("exportExtent", "DEFAULT"), ("levels", " ")]) == TileExportRequest(format: .tpkx))
        #expect(try Self.parse([], kind: .vector).format == .mbtiles)
    }

    @Test func exportByIsReadWithoutRegardToCase() throws {
        #expect(try Self.parse([("exportBy", "levelId"), ("levels", "0-2")]).levelKind == .levelId)
        #expect(try Self.parse([("exportBy", "SCALE")]).levelKind == .scale)
        #expect(throws: ArcGISError.self) { try Self.parse([("exportBy", "zoom")]) }
    }

    @Test func extentsInDegreesAreProjectedAndWebMercatorOnesKept() throws {
        let (x, y) = WebMercatorTiling.project(longitude: -10, latitude: 35)
        let degrees = try #require(
            try Self.parse([("exportExtent", #"{"xmin":-10,"ymin":35,"xmax":30,"ymax":60,"spatialReference":{"wkid":4326}}"#)]).extent)
        #expect(abs(degrees.xmin - x) < 1e-6 && abs(degrees.ymin - y) < 1e-6)
        let plain = try #require(try Self.parse([("exportExtent", "-10,35,30,60")]).extent)
        #expect(plain == degrees, "the ArcGIS API for Python's xmin,ymin,xmax,ymax form")
        let metres = try Self.parse([("exportExtent", #"{"xmin":1,"ymin":2,"xmax":3,"ymax":4,"spatialReference":{"wkid":102100}}"#)]).extent
        #expect(metres == Envelope(xmin: 1, ymin: 2, xmax: 3, ymax: 4))
    }

    @Test func areasOfInterestComeAsAFeatureSetOrAPolygon() throws {
        let ring = "[[-100,35],[-100,45],[-90,45],[-90,35],[-100,35]]"
        let featureSet = try Self.parse([("areaOfInterest", #"{"features":[{"geometry":{"rings":[\#(ring)],"spatialReference":{"wkid":4326}}}]}"#)])
        let polygon = try Self.parse([("polygon", #"{"rings":[\#(ring)],"spatialReference":{"wkid":4326}}"#)])
        #expect(featureSet.areaOfInterest?.first?.count == 5 && featureSet.areaOfInterest == polygon.areaOfInterest)
        let (x, _) = WebMercatorTiling.project(longitude: -100, latitude: 0)
        #expect(abs((polygon.areaOfInterest?[0][0].x ?? 0) - x) < 1e-6)
    }

    @Test func storageFormatsChooseThePackage() throws {
        #expect(try Self.parse([("storageFormat", "esriMapCacheStorageModeCompactV2")]).format == .tpkx)
        #expect(try Self.parse([("storageFormat", "MBTiles")]).format == .mbtiles)
        #expect(try Self.parse([("storageFormatType", "Compact")], kind: .vector).format == .mbtiles, "what the ArcGIS API for Python sends")
    }

    static let refusals: [(String, [(String, String)], String)] = [
        ("a .tpk has no public specification", [("storageFormat", "esriMapCacheStorageModeCompact")], "storageFormat"),
        ("an unknown format", [("storageFormat", "gif")], "storageFormat"),
        ("an extent that is not an envelope", [("exportExtent", #"{"x":1,"y":2}"#)], "exportExtent"),
        ("an empty extent", [("exportExtent", "30,60,-10,35")], "exportExtent"),
        (
            "a spatial reference tiles are not in", [("exportExtent", #"{"xmin":1,"ymin":2,"xmax":3,"ymax":4,"spatialReference":{"wkid":2193}}"#)],
            "exportExtent"
        ),
        ("an area of interest that is not a polygon", [("areaOfInterest", #"{"paths":[[[0,0],[1,1]]]}"#)], "areaOfInterest"),
        ("an area of interest that is not JSON", [("areaOfInterest", "north")], "areaOfInterest"),
    ]

    @Test(arguments: refusals.indices) func badInputIsRefusedNamingTheParameter(_ row: Int) {
        let (reason, pairs, parameter) = Self.refusals[row]
        #expect(reason.isEmpty == false)
        do {
            _ = try Self.parse(pairs)
            Issue.record("\(reason): accepted")
        } catch {
            #expect(error.code == 400 && ([error.message] + error.details).joined().contains(parameter), "\(reason): \(error)")
        }
    }

    // MARK: The job

    static func job() -> JobRecord {
        JobRecord(id: "j1", serviceName: "DemoBasemap", kind: .exportTiles, replicaId: "", replicaName: "", submittedAt: 100)
    }

    @Test func anExportJobReportsProgressThenItsResultParameter() throws {
        let submitted = Self.job().geoprocessingStatus(resultParameter: "out_service_url")
        #expect(submitted.status == .submitted && submitted.results.isEmpty)
        var record = try Self.job().applying(.started, at: 101).applying(.progress(JobProgress(done: 250, total: 1000)), at: 102)
        let working = record.geoprocessingStatus(resultParameter: "out_service_url")
        #expect(working.status == .executing && working.percent == 25 && working.messages.last?.description == "250 of 1000 tiles written.")
        #expect(working.json["progress"]?["percent"] == 25)
        record = try record.applying(.succeeded(resultFile: "x.tpkx"), at: 103)
        let done = record.geoprocessingStatus(resultParameter: "out_service_url")
        #expect(done.status == .succeeded && done.json["results"]?["out_service_url"]?["paramUrl"] == "results/out_service_url")
        #expect(GeoprocessingJobStatus(json: done.json) == done, "the client reads what the server writes")
    }

    @Test func anEstimateEndsWithAValueAndProgressNeedsAStartedJob() throws {
        #expect(throws: JobTransitionError.notStarted) { try Self.job().applying(.progress(JobProgress(done: 1, total: 2)), at: 101) }
        let value: JSONValue = ["totalSize": 1000, "totalTilesToExport": 21]
        let answered = try Self.job().applying(.started, at: 101).applying(.answered(value), at: 102)
        #expect(answered.status == .completed && answered.output == value && answered.resultFile == nil)
    }

    @Test func aFailedExportSaysWhyInErrorMessages() throws {
        let failed = try Self.job().applying(.started, at: 101).applying(.serverRestarted, at: 200)
        let status = failed.geoprocessingStatus(resultParameter: "out_service_url")
        #expect(status.status == .failed && status.results.isEmpty)
        #expect(status.messages.contains { $0.kind == .error && $0.description.contains("restarted") }, "\(status.messages)")
    }
}
