/// The rows of the administrative resources below `/arcgis/rest/admin` (issue 47): a layer's
/// `addToDefinition` changes the schema every user and every replica sees, so under token
/// security only an admin's token is admitted and API keys are refused.
extension AuthorizationTable {
    static let adminRows: [Row] = [
        Row(
            .arcgis, "rest/admin/services/:service/FeatureServer/:layer/addToDefinition", .change, .admin, .layer, .admitted,
            "adds nullable fields to the layer (SchemaRules.checkAddable); a missing layer is 404"),
        Row(
            .arcgis, "rest/admin/services/:service/:serviceInFolder/FeatureServer/:layer/addToDefinition", .change, .admin, .layer,
            .admitted, "the same through a folder"),
        Row(.arcgis, "rest/admin/backups", .read, .admin, .server, .admitted, "the backups with their manifests' summaries"),
        Row(.arcgis, "rest/admin/backups/create", .change, .admin, .server, .admitted, "an online backup now, one at a time"),
        Row(.arcgis, "rest/admin/backups/:backup", .read, .admin, .server, .admitted, "one backup's manifest; an unknown name is 404"),
        Row(.arcgis, "rest/admin/backups/:backup/download", .read, .admin, .server, .admitted, "one backup as a tar archive of its folder"),
        Row(.arcgis, "rest/admin/jobs", .read, .admin, .server, .admitted, "the job queue: running, waiting, per caller, the limits"),
        Row(.arcgis, "rest/admin/storage", .read, .admin, .server, .admitted, "items and their bytes per owner"),
        Row(
            .arcgis, "rest/admin/storage/services", .read, .admin, .server, .admitted,
            "each service's bytes on disk, measured when asked (a pass over a SpatiaLite database)"),
    ]
}
