import Foundation
import Hummingbird
import OutpostWire

/// The journal as an HTTP Archive (HAR 1.2, http://www.softwareishard.com/blog/har-12-spec/),
/// for browsers' and proxies' viewers: what was asked and answered, secrets masked, values
/// capped as the journal keeps them (bodies are not kept: `content` has only size and type).
extension JournalEntry {
    static func har(_ entries: [JournalEntry]) -> JSONValue {
        [
            "log": [
                "version": "1.2",
                "creator": ["name": "Outpost", "version": .string("\(FeatureServiceMetadata.currentVersion)")],
                "pages": [],
                "entries": .array(entries.map(\.harEntry)),
            ]
        ]
    }

    var harEntry: JSONValue {
        let duration = (durationMs * 1000).rounded() / 1000
        return [
            "startedDateTime": .string(Self.isoDate(milliseconds: time)),
            "time": .double(duration),
            "request": harRequest,
            "response": harResponse,
            "cache": [:],
            "timings": ["blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": .double(duration), "receive": 0, "ssl": -1],
            "comment": .string("seq \(seq), \(operation)"),
        ]
    }

    var harRequest: JSONValue {
        var request: JSONObject = [
            "method": .string(method), "url": .string(url), "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": Self.harPairs(requestHeaders), "queryString": Self.harPairs(query), "headersSize": -1, "bodySize": -1,
        ]
        if method != "GET" && method != "HEAD" {
            // The form's parameters that the query string did not carry: the body's.
            let inQuery = Set(query.map { $0.name.lowercased() })
            let body = parameters.filter { !inQuery.contains($0.name) }
            var params = Self.harPairs(body).arrayValue ?? []
            params += uploads.map { ["name": .string($0.name), "fileName": .string($0.filename ?? ""), "comment": .string("sha256 \($0.sha256)")] }
            let type = requestHeaders.first { $0.name.lowercased() == "content-type" }?.value ?? "application/x-www-form-urlencoded"
            request["postData"] = ["mimeType": .string(type), "params": .array(params), "text": ""]
        }
        return .object(request)
    }

    var harResponse: JSONValue {
        let type = responseHeaders.first { $0.name.lowercased() == "content-type" }?.value ?? ""
        return [
            "status": .int(Int64(status)), "statusText": .string(Self.reasonPhrases[status] ?? ""),
            "httpVersion": "HTTP/1.1", "cookies": [], "headers": Self.harPairs(responseHeaders),
            "content": ["size": .int(Int64(responseBytes ?? -1)), "mimeType": .string(type)],
            "redirectURL": .string(responseHeaders.first { $0.name.lowercased() == "location" }?.value ?? ""),
            "headersSize": -1, "bodySize": .int(Int64(responseBytes ?? -1)),
        ]
    }

    /// The reason phrases of the statuses Outpost answers with (HAR's `statusText`).
    static let reasonPhrases: [Int: String] = [
        200: "OK", 201: "Created", 204: "No Content", 206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 307: "Temporary Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 408: "Request Timeout", 413: "Content Too Large", 416: "Range Not Satisfiable", 429: "Too Many Requests",
        500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]

    static func harPairs(_ pairs: [JournalParameter]) -> JSONValue {
        .array(pairs.map { ["name": .string($0.name), "value": .string($0.value)] })
    }

    /// `2027-01-31T12:00:00.123Z`.
    static func isoDate(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
