import Hummingbird
import OutpostWire

extension Request {
    /// The request's parameters: the query string, overlaid by a form-encoded body.
    /// Every resource answers GET and POST alike, as ArcGIS Server does.
    func parameters(context: OutpostRequestContext) async throws -> RequestParameters {
        var parameters = RequestParameters(FormURLEncoding.decode(uri.query ?? ""))
        guard method == .post else { return parameters }
        let contentType = headers[.contentType]?.lowercased() ?? ""
        let body: ByteBuffer
        do {
            body = try await self.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw ArcGISError(kind: .tooLarge, code: 413, message: "Request body too large.",
                              details: ["The body exceeds \(context.maxUploadSize) bytes."])
        }
        if contentType.hasPrefix("multipart/form-data") {
            guard let boundary = MultipartForm.boundary(fromContentType: headers[.contentType] ?? "") else {
                throw ArcGISError.invalidParameter("Content-Type", "multipart body without a boundary")
            }
            let parts = try MultipartForm.parse(Array(buffer: body), boundary: boundary)
            for part in parts where part.filename == nil {
                parameters[part.name] = String(decoding: part.data, as: UTF8.self)
            }
        } else if body.readableBytes > 0 {
            parameters.merge(RequestParameters(FormURLEncoding.decode(String(buffer: body))))
        }
        return parameters
    }
}
