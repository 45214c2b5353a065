/// The rows of the plain routes, the `/arcgis` directory and the services' resources
/// (`AuthorizationTable`). Services have no owner: a service is every user's to read, and
/// every editor's to edit; what a user makes through it (replicas, jobs, result files,
/// uploads, versions) is theirs and the admins'.
extension AuthorizationTable {
    static let plainRows: [Row] = [
        Row(.root, "health/live", .get, .open, .nothing, .admitted, "liveness, for orchestrators"),
        Row(.root, "health/ready", .get, .open, .nothing, .admitted, "readiness: the database answers"),
        Row(.root, "metrics", .get, .open, .server, .admitted, "aggregate figures with bounded labels: no names, ids or users"),
        Row(.root, "arcgis/rest/static/preview.js", .get, .open, .nothing, .admitted, "a map preview's script"),
        Row(.root, "arcgis/rest/static/leaflet/**", .get, .open, .nothing, .admitted, "Leaflet's files, as Debian installs them"),
    ]

    static let arcgisRows: [Row] = [
        Row(.arcgis, "rest/info", .read, .open, .server, .admitted, "names the token service"),
        Row(.arcgis, "rest/info/healthCheck", .read, .open, .server, .admitted),
        Row(.arcgis, "tokens", .read, .open, .nothing, .admitted),
        Row(.arcgis, "tokens/generateToken", .stateChanging, .open, .user, .admitted, "a user's password; throttled per user and address"),
        Row(.arcgis, "rest/services", .read, .viewer, .server, .admitted, "every service and folder: services are every user's to read"),
        Row(.arcgis, "rest/services/:service", .read, .viewer, .folderOfServices, .admitted, "a folder's services; 404 for no such folder"),
        Row(.arcgis, "rest/**", .read, .viewer, .nothing, .nothingHere, "anything else under rest: 404 once admitted"),
        Row(
            .arcgis, "rest/directories/arcgisoutput/:job", .read, .viewer, .exportOutput, .owner(refusal: .notFound),
            "an export job's output folder: its job's owner's"),
        Row(.arcgis, "rest/directories/arcgisoutput/:job/:file", .read, .viewer, .exportOutput, .owner(refusal: .notFound)),
        Row(.arcgis, "home/webmap/viewer.html", .read, .identifies, .webMap, .visible(hidden: .itemHidden), "the web map viewer"),
    ]

    static let featureServiceRows: [Row] = [
        Row(.service, "FeatureServer", .read, .viewer, .service, .admitted, "404 for no such service"),
        Row(.service, "FeatureServer/layers", .read, .viewer, .service, .admitted),
        Row(.service, "FeatureServer/:layer", .read, .viewer, .layer, .admitted),
        Row(
            .service, "FeatureServer/:layer/query", .read, .viewer, .layer, .admitted,
            "with gdbVersion, the version must be visible to the caller (as versions/:version)"),
        Row(.service, "FeatureServer/:layer/:oid", .read, .viewer, .feature, .admitted),
        Row(.service, "FeatureServer/:layer/queryAttachments", .read, .viewer, .layer, .admitted),
        Row(.service, "FeatureServer/:layer/:oid/attachments", .read, .viewer, .feature, .admitted),
        Row(.service, "FeatureServer/:layer/:oid/attachments/:attachment", .read, .viewer, .attachment, .admitted),
        Row(.service, "FeatureServer/:layer/queryRelatedRecords", .read, .viewer, .layer, .admitted),
        Row(
            .service, "FeatureServer/applyEdits", .change, .editor, .service, .admitted,
            "with gdbVersion, the version must be editable by the caller (as versions/:version/reconcile)"),
        Row(.service, "FeatureServer/:layer/applyEdits", .change, .editor, .layer, .admitted, "gdbVersion as FeatureServer/applyEdits"),
        Row(.service, "FeatureServer/:layer/addFeatures", .change, .editor, .layer, .admitted, "gdbVersion as FeatureServer/applyEdits"),
        Row(.service, "FeatureServer/:layer/updateFeatures", .change, .editor, .layer, .admitted, "gdbVersion as FeatureServer/applyEdits"),
        Row(.service, "FeatureServer/:layer/deleteFeatures", .change, .editor, .layer, .admitted, "gdbVersion as FeatureServer/applyEdits"),
        Row(
            .service, "FeatureServer/:layer/:oid/addAttachment", .change, .editor, .feature, .admitted,
            "with uploadId, the upload must be the caller's (as uploads/:item)"),
        Row(.service, "FeatureServer/:layer/:oid/updateAttachment", .change, .editor, .attachment, .admitted, "uploadId as addAttachment"),
        Row(.service, "FeatureServer/:layer/:oid/deleteAttachments", .change, .editor, .attachment, .admitted),
    ]

    static let syncRows: [Row] = [
        Row(
            .service, "FeatureServer/createReplica", .stateChanging, .viewer, .service, .admitted,
            "the replica, its job and its file are the caller's; a viewer's replica is download-only"),
        Row(
            .service, "FeatureServer/synchronizeReplica", .change, .viewer, .replica, .owner(refusal: .forbidden),
            "an async sync's job is the replica owner's; editsUploadID must name an upload of the caller's"),
        Row(
            .service, "FeatureServer/unRegisterReplica", .stateChanging, .viewer, .replica, .owner(refusal: .forbidden),
            "replicaID=* unregisters only what the caller manages"),
        Row(.service, "FeatureServer/replicas", .read, .viewer, .replica, .lists(.managed)),
        Row(.service, "FeatureServer/replicas/:replica", .read, .viewer, .replica, .owner(refusal: .notFound)),
        Row(
            .service, "FeatureServer/replicas/:replica/conflicts", .read, .viewer, .replica, .owner(refusal: .notFound),
            "the log of an unregistered replica is the admins'"),
        Row(.service, "FeatureServer/jobs/:job", .read, .viewer, .replicaJob, .owner(refusal: .forbidden)),
        Row(.service, "FeatureServer/jobs/:job/status", .read, .viewer, .replicaJob, .owner(refusal: .forbidden)),
        Row(.service, "replicafiles/:file", .read, .viewer, .resultFile, .owner(refusal: .notFound), "a swept file's owner is forgotten: 404"),
        Row(.service, "FeatureServer/uploads/upload", .change, .editor, .service, .admitted, "the upload is the caller's"),
        Row(.service, "FeatureServer/uploads/register", .change, .editor, .service, .admitted, "the upload is the caller's"),
        Row(.service, "FeatureServer/uploads/:item", .read, .viewer, .upload, .owner(refusal: .notFound)),
        Row(.service, "FeatureServer/uploads/:item/parts", .read, .viewer, .upload, .owner(refusal: .notFound)),
        Row(.service, "FeatureServer/uploads/:item/uploadPart", .change, .editor, .upload, .owner(refusal: .notFound)),
        Row(.service, "FeatureServer/uploads/:item/commit", .change, .editor, .upload, .owner(refusal: .notFound)),
        Row(.service, "FeatureServer/uploads/:item/delete", .change, .editor, .upload, .owner(refusal: .notFound)),
    ]

    /// Versions follow ArcGIS's branch versioning: a version is its creator's; public ones are
    /// seen and edited by every user, protected ones seen by every user and edited by the
    /// owner, private ones seen and edited by the owner; admins (version administrators) do
    /// anything, and only the owner or an admin deletes one.
    static let versionRows: [Row] = [
        Row(.service, "VersionManagementServer", .read, .viewer, .versionedService, .admitted, "404 for a service without versions"),
        Row(.service, "VersionManagementServer/versions", .read, .viewer, .version, .lists(.visible)),
        Row(.service, "VersionManagementServer/create", .change, .editor, .versionedService, .admitted, "the version is the caller's"),
        Row(.service, "VersionManagementServer/versions/:version", .read, .viewer, .version, .visible(hidden: .notFound)),
        Row(.service, "VersionManagementServer/versions/:version/conflicts", .read, .viewer, .version, .visible(hidden: .notFound)),
        Row(.service, "VersionManagementServer/versions/:version/reconcile", .change, .editor, .version, .editable(hidden: .notFound)),
        Row(.service, "VersionManagementServer/versions/:version/delete", .change, .editor, .version, .changeable(hidden: .notFound)),
    ]

    static let tileRows: [Row] =
        ["MapServer", "VectorTileServer"].flatMap { kind in
            [
                Row(.service, kind, .read, .viewer, .tileService, .admitted, "404 for no such tile service"),
                Row(.service, "\(kind)/tile/:level/:row/:col", .read, .viewer, .tile, .admitted),
                Row(.service, "\(kind)/tilemap/:level/:row/:col/:width/:height", .read, .viewer, .tileService, .admitted),
                Row(
                    .service, "\(kind)/exportTiles", .read, .viewer, .tileService, .admitted,
                    "the job and its package are the caller's"),
                Row(.service, "\(kind)/exportTiles/jobs/:job", .read, .viewer, .exportJob, .owner(refusal: .notFound)),
                Row(.service, "\(kind)/exportTiles/jobs/:job/results/:parameter", .read, .viewer, .exportJob, .owner(refusal: .notFound)),
            ]
        } + [
            Row(.service, "MapServer/estimateExportTilesSize", .read, .viewer, .tileService, .admitted, "the job is the caller's"),
            Row(.service, "MapServer/estimateExportTilesSize/jobs/:job", .read, .viewer, .exportJob, .owner(refusal: .notFound)),
            Row(.service, "MapServer/estimateExportTilesSize/jobs/:job/results/:parameter", .read, .viewer, .exportJob, .owner(refusal: .notFound)),
            Row(.service, "VectorTileServer/jobs/:job", .read, .viewer, .exportJob, .owner(refusal: .notFound)),
            Row(.service, "VectorTileServer/jobs/:job/results/:parameter", .read, .viewer, .exportJob, .owner(refusal: .notFound)),
            Row(.service, "VectorTileServer/resources/styles", .read, .viewer, .tileService, .admitted),
            Row(.service, "VectorTileServer/resources/styles/root.json", .read, .viewer, .tileService, .admitted),
            Row(.service, "VectorTileServer/resources/sprites/:file", .read, .viewer, .styleResource, .admitted),
            Row(.service, "VectorTileServer/resources/fonts/:stack/:range", .read, .viewer, .styleResource, .admitted),
        ]

    /// Locators (`GeocodeServer`): every operation reads. API keys are refused until a
    /// key's privileges can name geocoding.
    static let geocodeRows: [Row] = [
        Row(.service, "GeocodeServer", .read, .viewer, .locator, .admitted, apiKeys: .refused, "404 for no such locator"),
        Row(.service, "GeocodeServer/findAddressCandidates", .read, .viewer, .locator, .admitted, apiKeys: .refused),
        Row(.service, "GeocodeServer/suggest", .read, .viewer, .locator, .admitted, apiKeys: .refused),
        Row(.service, "GeocodeServer/reverseGeocode", .read, .viewer, .locator, .admitted, apiKeys: .refused),
        Row(
            .service, "GeocodeServer/geocodeAddresses", .read, .viewer, .locator, .admitted, apiKeys: .refused,
            "at most MaxBatchSize records"),
        Row(.service, "GeocodeServer/exportLocator", .read, .viewer, .locator, .admitted, apiKeys: .refused, "a locator file, for LocatorTask"),
    ]

    /// Route networks (`NAServer`): every operation reads. API keys are refused until a key's
    /// privileges can name routing.
    static let routeRows: [Row] = [
        Row(.service, "NAServer", .read, .viewer, .network, .admitted, apiKeys: .refused, "404 for no such network"),
        Row(.service, "NAServer/Route", .read, .viewer, .network, .admitted, apiKeys: .refused),
        Row(.service, "NAServer/Route/solve", .read, .viewer, .network, .admitted, apiKeys: .refused, "at most 50 stops; 2 solves at once"),
        Row(.service, "NAServer/exportNetwork", .read, .viewer, .network, .admitted, apiKeys: .refused, "the stored form, for RouteTask"),
    ]

    /// The OfflinePackaging service (`System/OfflinePackaging`, reached through the folder
    /// prefix); what its jobs may do is `jobSteps`'.
    static let packagingRows: [Row] = [
        Row(.service, "GPServer", .read, .viewer, .gpService, .admitted, apiKeys: .refused, "404 for any other GPServer"),
        Row(.service, "GPServer/:task", .read, .viewer, .gpTask, .admitted, apiKeys: .refused),
        Row(
            .service, "GPServer/:task/submitJob", .change, .editor, .gpTask, .admitted, apiKeys: .refused,
            "the job is the caller's; its steps as jobSteps say"),
        Row(.service, "GPServer/:task/jobs/:job", .read, .viewer, .packagingJob, .owner(refusal: .notFound), apiKeys: .refused),
        Row(.service, "GPServer/:task/jobs/:job/results/:parameter", .read, .viewer, .packagingJob, .owner(refusal: .notFound), apiKeys: .refused),
    ]
}
