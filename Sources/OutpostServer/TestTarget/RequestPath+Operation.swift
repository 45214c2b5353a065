import OutpostWire

/// What a request's path names, for the journal (and fault rules): the operation (in
/// `ServerMetrics.operationLabel`'s names), the service (`Name` or `Folder/Name`) and the layer.
struct RequestPath: Sendable, Equatable {
    var operation: String
    var service: String?
    var layer: Int?
}

extension RequestPath {
    /// Classifies `path` (no query) without touching the store: a pure function of the text.
    init(_ path: String) {
        operation = ServerMetrics.operationLabel(path)
        // Names the metrics' labels fold into others: OfflinePackaging's tasks and the OAuth
        // token endpoint.
        let lowered = path.lowercased()
        if lowered.contains("/offlinepackaging/gpserver/") {
            operation = "packaging"
        } else if lowered.hasSuffix("/oauth2/token") {
            operation = "generateToken"
        }
        let segments = path.split(separator: "/").map { FormURLEncoding.percentDecode(String($0)) }
        guard segments.first == "arcgis", let kind = ServiceRoutes.kindIndex(segments), kind > 3 else { return }
        service = segments[3..<kind].joined(separator: "/")
        if segments.count > kind + 1, let layer = Int(segments[kind + 1]), layer >= 0 { self.layer = layer }
    }
}
