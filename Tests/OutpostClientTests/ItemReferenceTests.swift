import Foundation
import Testing

@testable import OutpostClient

/// An item given as an id or as the URL a user copies (`ItemReference`), one case per form.
@Suite struct ItemReferenceTests {
    static let id = "de3000000000000000000000000000a1"

    @Test(arguments: [
        ("https://host/arcgis/home/item.html?id=\(id)", "https://host/arcgis"),
        ("https://host/arcgis/home/item.html?id=\(id)#overview", "https://host/arcgis"),
        ("http://127.0.0.1:8080/arcgis/sharing/rest/content/items/\(id)", "http://127.0.0.1:8080/arcgis"),
        ("http://127.0.0.1:8080/arcgis/sharing/rest/content/items/\(id)/data?f=json&token=abc", "http://127.0.0.1:8080/arcgis"),
        ("https://host/arcgis/sharing/rest/content/users/ada/items/\(id)", "https://host/arcgis"),
        ("https://host/portal/home/webmap/viewer.html?webmap=\(id)", "https://host/portal"),
        ("https://org.maps.arcgis.com/apps/mapviewer/index.html?webmap=\(id)", "https://org.maps.arcgis.com"),
        ("https://www.arcgis.com/home/item.html?ID=\(id)", "https://www.arcgis.com"),
        ("  https://host/a/b/arcgis/Sharing/rest/content/items/\(id)/info/thumbnail.png ", "https://host/a/b/arcgis"),
    ])
    func anItemURLNamesTheItemAndItsPortal(url: String, portal: String) throws {
        let reference = try ItemReference(parsing: url)
        #expect(reference.itemId == Self.id)
        #expect(reference.portal == URL(string: portal))
        // Without --server the URL's portal; with it, --server wins.
        #expect(try ItemReference.resolve(url, server: nil) == (Self.id, URL(string: portal)!))
        #expect(try reference.portal(server: "https://other/arcgis") == URL(string: "https://other/arcgis"))
    }

    @Test func aBareIdNeedsTheServer() throws {
        let reference = try ItemReference(parsing: Self.id)
        #expect(reference == ItemReference(itemId: Self.id))
        #expect(try reference.portal(server: "http://h:8080/arcgis") == URL(string: "http://h:8080/arcgis"))
        #expect(throws: ItemReferenceError.noServer(Self.id)) { try reference.portal(server: nil) }
        #expect(throws: ItemReferenceError.serverNotAURL("h/arcgis")) { try reference.portal(server: "h/arcgis") }
    }

    @Test(arguments: [
        ("https://host/arcgis/rest/services/Demo/FeatureServer", ItemReferenceError.noPortal("https://host/arcgis/rest/services/Demo/FeatureServer")),
        ("https://host/arcgis/home/item.html", .noItemId("https://host/arcgis/home/item.html")),
        ("https://host/arcgis/home/item.html?id=", .noItemId("https://host/arcgis/home/item.html?id=")),
        ("https://host/arcgis/sharing/rest/content/items/..%2F..%2Fx", .noItemId("https://host/arcgis/sharing/rest/content/items/..%2F..%2Fx")),
        ("https://host/arcgis/home/item.html?id=a/b", .noItemId("https://host/arcgis/home/item.html?id=a/b")),
        ("ftp://host/arcgis/home/item.html?id=abc", .notAnItem("ftp://host/arcgis/home/item.html?id=abc")),
        ("host/arcgis/home/item.html?id=abc", .notAnItem("host/arcgis/home/item.html?id=abc")),
        ("../etc", .notAnItem("../etc")),
        ("", .notAnItem("")),
        // User information is refused, and never repeated (nor in a URL that does not parse).
        ("https://bob:hunter2@host/arcgis/home/item.html?id=abc", .credentialsInURL("https://…@host/arcgis/home/item.html?id=abc")),
        ("https://bob@host/arcgis/home/item.html?id=abc", .credentialsInURL("https://…@host/arcgis/home/item.html?id=abc")),
        ("https://bob:hun@ter2@host/arcgis/home/item.html?id=abc", .credentialsInURL("https://…@host/arcgis/home/item.html?id=abc")),
        ("https://bob:hunter 2@host/arcgis/home/item.html?id=abc", .credentialsInURL("https://…@host/arcgis/home/item.html?id=abc")),
        ("ftp://bob:hunter2@host/arcgis/home/item.html?id=abc", .notAnItem("ftp://…@host/arcgis/home/item.html?id=abc")),
        ("https://bob:hun/ter2@host/arcgis/home/item.html?id=abc", .notAnItem("https://…@host/arcgis/home/item.html?id=abc")),
        ("bob:hunter2@host/arcgis/home/item.html?id=abc", .notAnItem("…@host/arcgis/home/item.html?id=abc")),
    ])
    func anythingElseIsRefusedSayingWhatToGive(text: String, error: ItemReferenceError) {
        #expect(throws: error) { try ItemReference(parsing: text) }
        #expect(error.description.contains("item") || error.description.contains("portal"))
        #expect(!error.description.contains("hunter"))
    }

    @Test func aServerWithAUserNameOrPasswordIsRefusedWithoutRepeatingIt() {
        let reference = ItemReference(itemId: Self.id)
        #expect(throws: ItemReferenceError.credentialsInURL("https://…@host/arcgis")) {
            try reference.portal(server: "https://bob:hunter2@host/arcgis")
        }
        #expect(throws: ItemReferenceError.serverNotAURL("…@host/arcgis")) { try reference.portal(server: "bob:hunter2@host/arcgis") }
    }
}
