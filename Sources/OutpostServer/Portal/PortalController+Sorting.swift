import Foundation
import OutpostService
import OutpostStorage
import OutpostWire

extension PortalController {
    /// `items` in the order `sortField` (one of `sortFields`) and `sortOrder` (`asc`, `desc`)
    /// ask, as ArcGIS's user content listing sorts them; unchanged without a `sortField`.
    static func sorted(_ items: [PortalItem], _ p: RequestParameters) throws -> [PortalItem] {
        guard let field = p.string("sortField")?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased(), !field.isEmpty
        else { return items }
        guard sortFields.contains(field) else {
            throw ArcGISError.invalidParameter("sortField", "one of \(sortFields.joined(separator: ", "))")
        }
        let descending = p.string("sortOrder")?.lowercased() == "desc"
        return items.sorted { a, b in descending ? precedes(b, a, by: field) : precedes(a, b, by: field) }
    }
}
