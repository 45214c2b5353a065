import OutpostWire

/// SetupMapArea run again on an area that has packages (offline-maps.md §2.3, step 4): a
/// package made with the same plan as one wanted now — the same service, layers, queries,
/// attachment options and deltas, or the same levels asked of a tile service — is kept
/// (`unchanged`); every other existing package is deleted (`deleted`) and the plans nobody
/// matches are made (`new`).
public enum PackageReuse {
    /// A package that exists: its item id and the plan it was made with (nil when its
    /// properties no longer say, which is never equivalent to anything).
    public struct Existing: Equatable, Sendable {
        public var itemId: String
        public var plan: PackagePlan?

        public init(itemId: String, plan: PackagePlan?) {
            self.itemId = itemId
            self.plan = plan
        }
    }

    public struct Decision: Equatable, Sendable {
        /// Per wanted plan, in order: the package to keep, or nil to make it.
        public var wanted: [(plan: PackagePlan, keep: String?)]
        /// Packages to delete, in their order.
        public var delete: [String]

        public static func == (lhs: Decision, rhs: Decision) -> Bool {
            lhs.delete == rhs.delete && lhs.wanted.map(\.plan) == rhs.wanted.map(\.plan) && lhs.wanted.map(\.keep) == rhs.wanted.map(\.keep)
        }
    }

    /// Matches each wanted plan with at most one equivalent existing package.
    public static func decide(existing: [Existing], wanted: [PackagePlan]) -> Decision {
        var unused = existing
        var decision = Decision(wanted: [], delete: [])
        for plan in wanted {
            if let index = unused.firstIndex(where: { $0.plan == plan }) {
                decision.wanted.append((plan, unused[index].itemId))
                unused.remove(at: index)
            } else {
                decision.wanted.append((plan, nil))
            }
        }
        decision.delete = unused.map(\.itemId)
        return decision
    }
}

extension PackagePlan {
    /// The plan a package item was made with, from its `type` and `properties` (what the
    /// packager writes there: docs/map-areas.md, "Items").
    public init?(packageType type: String, properties: JSONValue) {
        guard let url = properties["url"]?.stringValue else { return nil }
        switch type {
        case "GeoPackage":
            guard let layers = properties["layers"]?.arrayValue?.compactMap({ $0.int64Value.map(Int.init) }) else { return nil }
            var queries: [Int: JSONValue] = [:]
            for (key, query) in properties["layerQueries"]?.objectValue ?? [:] {
                guard let id = Int(key) else { return nil }
                queries[id] = query
            }
            self = .features(
                FeaturePackagePlan(
                    serviceURL: url, layers: layers, returnAttachments: properties["returnAttachments"]?.boolValue ?? false,
                    attachmentsSyncDirection: properties["attachmentsSyncDirection"]?.stringValue ?? "none", layerQueries: queries,
                    maxDeltaAge: properties["createPkgDeltas"]?["maxDeltaAge"]?.int64Value.map(Int.init)))
        case "Compact Tile Package", "MBTiles":
            // `requestedLevels` is what was asked (absent: the packager chose), `levels` what was made.
            let requested = properties["requestedLevels"]
            self = .tiles(
                TilePackagePlan(serviceURL: url, kind: type == "MBTiles" ? .vector : .raster, levels: requested?.stringValue))
        default:
            return nil
        }
    }

    /// What `init(packageType:properties:)` reads back, for the packager to write.
    public var properties: JSONObject {
        switch self {
        case .features(let plan):
            var queries = JSONObject()
            for (id, query) in plan.layerQueries.sorted(by: { $0.key < $1.key }) { queries[String(id)] = query }
            return [
                "url": .string(plan.serviceURL), "layers": .array(plan.layers.map { .int(Int64($0)) }),
                "layerQueries": .object(queries), "returnAttachments": .bool(plan.returnAttachments),
                "attachmentsSyncDirection": .string(plan.attachmentsSyncDirection),
                "createPkgDeltas": plan.maxDeltaAge.map { ["maxDeltaAge": .int(Int64($0))] } ?? .null,
            ]
        case .tiles(let plan):
            return ["url": .string(plan.serviceURL), "requestedLevels": plan.levels.map(JSONValue.string) ?? .null]
        }
    }
}
