/// The OfflinePackaging geoprocessing service's metadata (offline-maps.md §2.3, Appendix B):
/// the service and its three tasks, as the ArcGIS API for Python reads them to build its
/// functions (`create_map_area`, `setup_map_area`, `refresh_map_area_package`).
public enum OfflinePackagingTasks {
    /// Where `portals/self` says the service is, below `/arcgis/rest/services/`.
    public static let serviceName = "System/OfflinePackaging"
    public static let taskNames = ["CreateMapArea", "RefreshMapAreaPackage", "SetupMapArea"]

    /// `…/GPServer?f=json`.
    public static func service(currentVersion: Double) -> JSONValue {
        [
            "currentVersion": .double(currentVersion),
            "serviceDescription": "Creates map areas of web maps and packages them for offline use (Outpost).",
            "tasks": .array(taskNames.map(JSONValue.string)), "executionType": "esriExecutionTypeAsynchronous", "resultMapServerName": "",
            "maximumRecords": 1000, "capabilities": "null",
        ]
    }

    private static func parameter(
        _ name: String, _ displayName: String, output: Bool = false, required: Bool = false, defaultValue: String = ""
    ) -> JSONValue {
        [
            "name": .string(name), "dataType": "GPString", "displayName": .string(displayName), "description": .string(displayName),
            "direction": output ? "esriGPParameterDirectionOutput" : "esriGPParameterDirectionInput", "defaultValue": .string(defaultValue),
            "parameterType": output ? "esriGPParameterTypeDerived" : required ? "esriGPParameterTypeRequired" : "esriGPParameterTypeOptional",
            "category": "",
        ]
    }

    /// Each task's parameters, inputs then its one output.
    public static let parameters: [String: [JSONValue]] = [
        "CreateMapArea": [
            parameter("mapItemId", "Map Item ID", required: true), parameter("bookmark", "Map Bookmark"), parameter("extent", "Extent"),
            parameter("areaType", "Area Type", defaultValue: "BOOKMARK"), parameter("area", "Area"), parameter("outputName", "Output Name"),
            parameter("mapAreaItemId", "Map Area Item ID", output: true),
        ],
        "SetupMapArea": [
            parameter("mapAreaItemId", "Map Area Item ID", required: true), parameter("mapLayersToIgnore", "Map Layers To Ignore"),
            parameter("tileServices", "Tile Services"), parameter("featureServices", "Feature Services"),
            parameter("packages", "Packages", output: true),
        ],
        "RefreshMapAreaPackage": [
            parameter("packages", "List of packages to update", required: true), parameter("result", "Update result", output: true),
        ],
    ]

    /// The output parameter of each task.
    public static func outputName(of task: String) -> String? {
        parameters[task]?.last?["name"]?.stringValue
    }

    /// `…/GPServer/<Task>?f=json`, or nil for a task the service does not have.
    public static func task(_ name: String) -> JSONValue? {
        guard let parameters = parameters[name] else { return nil }
        return [
            "name": .string(name), "displayName": .string(name), "description": .string(name), "category": "", "helpUrl": "",
            "executionType": "esriExecutionTypeAsynchronous", "parameters": .array(parameters),
        ]
    }
}
