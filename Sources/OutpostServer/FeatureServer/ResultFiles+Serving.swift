import Foundation
import Hummingbird
import OutpostService

extension ResultFiles {
    /// A published result file as the answer: whole, or the range a resuming client asks
    /// for (`Range: bytes=N-` or `N-M`); its type follows its extension.
    static func response(serving path: String, named name: String, request: Request, context: OutpostRequestContext) async throws -> Response {
        let ext = (name as NSString).pathExtension
        var headers: HTTPFields = [.contentType: contentTypes[ext] ?? "application/octet-stream", .acceptRanges: "bytes"]
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        if let range = request.headers[.range].flatMap({ byteRange($0, size: size) }) {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            let body = try await FileIO().loadFile(path: path, range: range, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
        let body = try await FileIO().loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The one range of `Range: bytes=start-[end]` inside a file of `size` bytes; nil for
    /// anything else (the whole file is sent).
    static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let bounds = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Int(bounds[0].trimmingCharacters(in: .whitespaces)), start >= 0, start < size else { return nil }
        let endText = bounds[1].trimmingCharacters(in: .whitespaces)
        let end = endText.isEmpty ? size - 1 : min(Int(endText) ?? -1, size - 1)
        return end >= start ? start...end : nil
    }

}
