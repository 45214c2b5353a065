import Foundation
import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// `addItem`/`update` with `dataUrl`: the item's file taken from a file of this server — an
/// export's package (`/arcgis/rest/directories/arcgisoutput/<job>/<name>`) or a replica
/// result file (`/arcgis/rest/services/<service>/replicafiles/<name>`) — that the caller may
/// download. The server fetches nothing from elsewhere (docs/portal.md, "Item files").
extension PortalController {
    /// A copy of the file `dataUrl` names, for the store to take over, and its name.
    func serverFile(dataUrl: String, _ request: Request, _ c: OutpostRequestContext) throws -> (name: String, path: String) {
        func refused(_ reason: String) -> ArcGISError {
            ArcGISError(kind: .invalidParameter, message: "Unable to add item.", details: ["dataUrl: \(reason)"])
        }
        guard let url = URLComponents(string: dataUrl), url.scheme == nil || ["http", "https"].contains(url.scheme!.lowercased()) else {
            throw refused("'\(dataUrl)' is not an http(s) URL.")
        }
        if let host = url.host {
            let authority = url.port.map { "\(host):\($0)" } ?? host
            guard authority.lowercased() == origin.authority(of: request).lowercased() else {
                throw refused("only files of this server (an export's package or a replica file) are taken; send other files as 'file'.")
            }
        }
        let parts = url.path.split(separator: "/").map(String.init)
        let file: String
        let name: String
        if parts.count == 6, parts.starts(with: ["arcgis", "rest", "directories", "arcgisoutput"]) {
            guard let job = try store.jobs.job(id: parts[4]), job.kind == .exportTiles, c.mayManage(replicaOwner: job.owner),
                let result = job.resultFile,
                parts[5] == "\(job.serviceName.replacingOccurrences(of: "/", with: "_")).\((result as NSString).pathExtension)"
            else { throw refused("no export output at \(url.path).") }
            (file, name) = (result, parts[5])
        } else if parts.count >= 6, parts.starts(with: ["arcgis", "rest", "services"]), parts[parts.count - 2] == "replicafiles",
            ResultFiles.isValidName(parts[parts.count - 1]),
            let owner = try store.resultFiles.resultFileOwner(parts[parts.count - 1], under: parts[3..<(parts.count - 2)].joined(separator: "/")),
            c.mayManage(replicaOwner: owner)
        {
            (file, name) = (parts[parts.count - 1], parts[parts.count - 1])
        } else {
            throw refused("only files of this server (an export's package or a replica file) are taken; send other files as 'file'.")
        }
        guard let path = files.open(file) else { throw refused("the file at \(url.path) has expired or does not exist.") }
        try FileManager.default.createDirectory(atPath: store.temporaryDirectory, withIntermediateDirectories: true)
        let copy = (store.temporaryDirectory as NSString).appendingPathComponent("item-\(PortalNames.newId())")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return (name, copy)
    }
}
