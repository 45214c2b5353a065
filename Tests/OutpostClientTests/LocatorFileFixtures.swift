import Foundation
import OutpostGeoPackage
import OutpostGeocoding

/// Small locator files made in place, for `LocatorTask` and the hostile-file tests.
enum LocatorFileFixtures {
    /// A locator file of one address, 1 Hill Street, Springfield.
    static func write(_ path: String, name: String = "One") throws {
        let fields = LocatorSourceFields(houseNumber: "1", street: "Hill Street", locality: "Springfield")
        let entry = try LocatorEntry.make(id: "1", kind: .pointAddress, fields: fields, location: WebMercator.point(longitude: 13.4, latitude: 52.52))
        let definition = #"{"entryCount":1,"knownLocalities":[["springfield"]],"builtAt":7,"refused":{}}"#
        try LocatorFile.write(to: path, name: name, definition: definition, builtAt: 7) { emit in try emit(LocatorEntryRow(entry)) }
    }
}
