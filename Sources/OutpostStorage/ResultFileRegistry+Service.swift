import OutpostWire

extension ResultFileRegistry {
    /// The owner of result file `name` when it is asked for below `service` (a feature
    /// service's name, as its URL names it): nil when the file was made for another service
    /// (answered as missing, whoever asks). A file recorded with no service (made before
    /// services were kept) keeps its owner check alone.
    public func resultFileOwner(_ name: String, under service: String) throws -> String? {
        if let made = try resultFileService(name),
            ServiceDefinition.normalizedName(made) != ServiceDefinition.normalizedName(service)
        {
            return nil
        }
        return try resultFileOwner(name)
    }
}
