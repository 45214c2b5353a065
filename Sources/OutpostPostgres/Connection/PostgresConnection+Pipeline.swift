import CLibPQ
import Foundation

extension PostgresQuery {
    /// Calls `body` with the parameters as libpq takes them (text, or binary for bytes).
    func withParameters<T>(
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) throws -> T
    ) rethrows -> T {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        buffers.reserveCapacity(binds.count)
        var lengths = [Int32](repeating: 0, count: binds.count)
        var formats = [Int32](repeating: 0, count: binds.count)
        defer { for buffer in buffers { free(buffer) } }
        for (i, bind) in binds.enumerated() {
            switch bind {
            case .null: buffers.append(nil)
            case .text(let text): buffers.append(strdup(text))
            case .binary(let bytes):
                let buffer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
                buffers.append(buffer)
                lengths[i] = Int32(bytes.count)
                formats[i] = 1
            }
        }
        return try body(Int32(binds.count), buffers.map { UnsafePointer($0) }, lengths, formats)
    }
}

extension PostgresConnection {
    /// How many statements one pipeline sends before reading their answers: small enough that
    /// the answers never fill the socket while statements are still being written.
    static let pipelineDepth = 256

    /// Runs statements that do not depend on each other's answers in libpq's pipeline mode:
    /// one round trip per `pipelineDepth` statements instead of one each; their answers in
    /// order. Throws the first statement's error; the statements after it are not run
    /// (PostgreSQL aborts the rest of the pipeline), so inside a transaction the caller must
    /// give the transaction up.
    @discardableResult
    public func pipeline(_ queries: [PostgresQuery]) throws -> [PostgresResult] {
        var results: [PostgresResult] = []
        var start = queries.startIndex
        while start < queries.endIndex {
            let end = min(start + Self.pipelineDepth, queries.endIndex)
            try pipelineBatch(queries[start..<end], into: &results)
            start = end
        }
        return results
    }

    private func pipelineBatch(_ queries: ArraySlice<PostgresQuery>, into results: inout [PostgresResult]) throws {
        guard PQenterPipelineMode(handle) == 1 else { throw PostgresError(result: nil, connection: handle) }
        defer { PQexitPipelineMode(handle) }
        for query in queries {
            let sent = query.withParameters { count, values, lengths, formats in
                PQsendQueryParams(handle, query.sql, count, nil, values, lengths, formats, 0)
            }
            guard sent == 1 else { throw PostgresError(result: nil, connection: handle) }
        }
        guard PQpipelineSync(handle) == 1 else { throw PostgresError(result: nil, connection: handle) }
        var failure: Error?
        // Each statement's answer, then nil; the sync's answer ends the batch.
        while true {
            guard let result = PQgetResult(handle) else {
                if !isUsable { throw failure ?? PostgresError(result: nil, connection: handle) }
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
                continue
            }
            do { results.append(try checked(result)) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}
