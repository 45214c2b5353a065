import OutpostRouting
import OutpostStorage
import OutpostWire

/// A network's `NAServer` and its `Route` layer as ArcGIS describes them (docs/routing.md,
/// "Service"): the route layer's properties are the default route parameters.
public enum NetworkInfo {
    public static func service(_ network: StoredNetwork, currentVersion: Double) -> JSONValue {
        [
            "currentVersion": .double(currentVersion),
            "serviceDescription": .string("Routes over \(network.definition.service) layer \(network.definition.layer)"),
            "routeLayers": ["Route"],
            "serviceAreaLayers": [],
            "closestFacilityLayers": [],
            "serviceLimits": ["maximumStops": .int(Int64(RouteRequest.maximumStops))],
        ]
    }

    public static func routeLayer(_ network: StoredNetwork, currentVersion: Double) -> JSONValue {
        let impedances = network.hasCost ? Impedance.allCases : [.length, .travelTime]
        let extent = network.extent.count == 4 ? network.extent : [0, 0, 0, 0]
        return [
            "currentVersion": .double(currentVersion),
            "layerName": "Route",
            "layerType": "esriNAServerRouteLayer",
            "impedance": .string(Impedance.travelTime.rawValue),
            "restrictUTurns": "esriNFSBAllowBacktrack",
            "restrictions": .array(Restriction.allCases.map { .string($0.rawValue) }),
            "accumulateAttributeNames": .array(impedances.map { .string($0.rawValue) }),
            "attributeParameterValues": [],
            "outputLineType": .string(RouteRequest.OutputLines.trueShape.rawValue),
            "useHierarchy": false,
            "ignoreInvalidLocations": true,
            "findBestSequence": false,
            "preserveFirstStop": true,
            "preserveLastStop": true,
            "useTimeWindows": false,
            "startTime": .null,
            "directionsLanguage": "en",
            "directionsSupportedLanguages": .array(DirectionsLanguage.allCases.map { .string($0.rawValue) }),
            "directionsOutputType": "esriDOTComplete",
            "directionsStyleName": "NA Desktop",
            "directionsLengthUnits": .string(LengthUnit.kilometers.rawValue),
            "directionsTimeAttribute": .string(Impedance.travelTime.rawValue),
            "hasZ": false,
            "supportedTravelModes": [],
            "networkDataset": [
                "name": .string(network.name),
                "networkAttributes": .array(
                    impedances.map { impedance in
                        [
                            "name": .string(impedance.rawValue), "dataType": "esriNADTDouble", "units": .string(units(impedance)),
                            "usageType": "esriNAUTCost",
                        ]
                    }
                        + Restriction.allCases.map {
                            [
                                "name": .string($0.rawValue), "dataType": "esriNADTBoolean", "units": "esriNAUUnknown",
                                "usageType": "esriNAUTRestriction",
                            ]
                        }),
                "networkSources": [["name": .string(network.definition.service), "sourceType": "esriNAEdgeFeatureSource"]],
            ],
            "extent": [
                "xmin": .double(extent[0]), "ymin": .double(extent[1]), "xmax": .double(extent[2]), "ymax": .double(extent[3]),
                "spatialReference": SpatialReference.wgs84.json,
            ],
        ]
    }

    static func units(_ impedance: Impedance) -> String {
        switch impedance {
        case .length: "esriNAUMeters"
        case .travelTime: "esriNAUMinutes"
        case .cost: "esriNAUUnknown"
        }
    }
}
