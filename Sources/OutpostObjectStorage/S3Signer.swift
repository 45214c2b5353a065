import Crypto
import Foundation

/// AWS Signature Version 4 for S3 requests, as the S3 API reference specifies it
/// ("Authenticating Requests: Using the Authorization Header"): the canonical request, the
/// string to sign, the signing key derived from the secret by date, region and service, and
/// the `Authorization` header. Pure; tested with AWS's published examples.
public struct S3Signer: Sendable {
    public var accessKey: String
    public var secretKey: String
    public var region: String
    public var service: String

    public init(accessKey: String, secretKey: String, region: String = "us-east-1", service: String = "s3") {
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.region = region
        self.service = service
    }

    /// The SHA-256 of a payload, lower-case hex (`x-amz-content-sha256`).
    public static func hash(_ bytes: some DataProtocol) -> String { hex(SHA256.hash(data: bytes)) }
    public static let emptyPayloadHash = hash(Data())

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    public static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(c.year ?? 1970)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// The canonical request: method, the URI-encoded path (slashes kept), the query sorted by
    /// encoded name, the headers lower-cased and trimmed in name order, their names, the payload hash.
    public static func canonicalRequest(
        method: String, path: String, query: [(String, String)], headers: [String: String], payloadHash: String
    ) -> String {
        let encoded: [(name: String, value: String)] = query.map { (encode($0.0), encode($0.1)) }
        let sorted = encoded.sorted { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        let canonicalQuery = sorted.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let names = headers.keys.map { $0.lowercased() }.sorted()
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        let canonicalHeaders = names.map { "\($0):\(collapse(lowered[$0] ?? ""))\n" }.joined()
        return [method, encode(path, keepSlashes: true), canonicalQuery, canonicalHeaders, names.joined(separator: ";"), payloadHash]
            .joined(separator: "\n")
    }

    /// The `Authorization` header for a request whose headers (`host`, `x-amz-date` and, for S3,
    /// `x-amz-content-sha256` among them) are all signed.
    public func authorization(
        method: String, path: String, query: [(String, String)], headers: [String: String], payloadHash: String, timestamp: String
    ) -> String {
        let day = String(timestamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let request = Self.canonicalRequest(method: method, path: path, query: query, headers: headers, payloadHash: payloadHash)
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope, Self.hash(Data(request.utf8))].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        let signed = headers.keys.map { $0.lowercased() }.sorted().joined(separator: ";")
        return "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope),SignedHeaders=\(signed),Signature=\(signature)"
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters (and `/` in paths).
    static func encode(_ text: String, keepSlashes: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
            if unreserved || (keepSlashes && byte == UInt8(ascii: "/")) {
                out.append(Character(UnicodeScalar(byte)))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    private static func collapse(_ value: String) -> String {
        value.trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
