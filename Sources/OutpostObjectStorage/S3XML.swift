import Foundation
import OutpostStorage

/// The few S3 XML answers Outpost reads (ListObjectsV2, errors), read by element name: S3's
/// documents are flat enough that no general XML parser is needed. Pure.
enum S3XML {
    /// The text of every `<name>…</name>` in `xml`, entities decoded.
    static func values(_ name: String, in xml: Substring) -> [String] {
        var found: [String] = []
        var rest = xml
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            found.append(decode(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    static func value(_ name: String, in xml: Substring) -> String? { values(name, in: xml).first }

    /// ListObjectsV2: the objects, and the token of the next page when the answer is truncated.
    static func listing(_ xml: String) -> (objects: [BlobInfo], next: String?) {
        var objects: [BlobInfo] = []
        var rest = Substring(xml)
        while let open = rest.range(of: "<Contents>"), let close = rest[open.upperBound...].range(of: "</Contents>") {
            let entry = rest[open.upperBound..<close.lowerBound]
            if let key = value("Key", in: entry), let size = Int64(value("Size", in: entry) ?? "") {
                objects.append(BlobInfo(key: key, size: size, modified: milliseconds(iso8601: value("LastModified", in: entry) ?? "")))
            }
            rest = rest[close.upperBound...]
        }
        let truncated = value("IsTruncated", in: Substring(xml)) == "true"
        return (objects, truncated ? value("NextContinuationToken", in: Substring(xml)) : nil)
    }

    /// An error document's `Code: Message`.
    static func error(_ xml: String) -> String? {
        guard let code = value("Code", in: Substring(xml)) else { return nil }
        return code + (value("Message", in: Substring(xml)).map { ": \($0)" } ?? "")
    }

    static func milliseconds(iso8601 text: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int64(date.timeIntervalSince1970 * 1000) }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970 * 1000) } ?? 0
    }

    private static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
