import Foundation

/// Where an S3-compatible bucket is, as `--object-store` gives it:
/// `http[s]://[ACCESS_KEY:SECRET@]HOST[:PORT]/BUCKET[?region=REGION]` (path-style, as MinIO,
/// Ceph and rclone serve it; AWS answers path-style too). Keys missing from the URL come from
/// the environment's `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, as AWS's own tools read
/// them; the region from `AWS_REGION`, else `us-east-1`.
public struct S3Location: Sendable, Equatable {
    public var endpoint: URL
    public var bucket: String
    public var accessKey: String
    public var secretKey: String
    public var region: String

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case invalid(String)
        public var description: String {
            switch self {
            case .invalid(let reason): reason
            }
        }
    }

    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme, ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty
        else { throw Failure.invalid("'\(Self.redacted(text))' is not an http(s)://HOST[:PORT]/BUCKET URL") }
        let bucket = components.path.split(separator: "/").map(String.init)
        // S3's bucket naming rules: 3 to 63 lower-case letters, digits, dots and hyphens.
        guard bucket.count == 1, let name = bucket.first, (3...63).contains(name.count),
            name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") })
        else { throw Failure.invalid("the URL's path must be one bucket name (3 to 63 of a-z, 0-9, '.', '-')") }
        let accessKey = components.percentEncodedUser?.removingPercentEncoding ?? environment["AWS_ACCESS_KEY_ID"]
        let secretKey = components.percentEncodedPassword?.removingPercentEncoding ?? environment["AWS_SECRET_ACCESS_KEY"]
        guard let accessKey, let secretKey, !accessKey.isEmpty, !secretKey.isEmpty else {
            throw Failure.invalid("no credentials: give ACCESS_KEY:SECRET@ in the URL or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        var base = URLComponents()
        base.scheme = scheme
        base.host = host
        base.port = components.port
        guard let endpoint = base.url else { throw Failure.invalid("'\(host)' is not a host") }
        self.endpoint = endpoint
        self.bucket = name
        self.accessKey = accessKey
        self.secretKey = secretKey
        region = components.queryItems?.first { $0.name == "region" }?.value ?? environment["AWS_REGION"] ?? "us-east-1"
    }

    public var store: S3BlobStore {
        S3BlobStore(endpoint: endpoint, bucket: bucket, signer: S3Signer(accessKey: accessKey, secretKey: secretKey, region: region))
    }

    /// The bucket's URL without credentials, for logs.
    public var redactedDescription: String { "\(endpoint.absoluteString)/\(bucket) (\(region))" }

    /// `text` with any secret in it hidden, for errors.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://"), scheme.upperBound < at else { return text }
        return text[..<scheme.upperBound] + "…" + text[at...]
    }
}
