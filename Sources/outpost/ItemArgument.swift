import ArgumentParser
import Foundation
import OutpostClient

/// What a command's item argument help says: an id or the URL a user copies.
let itemArgumentHelp = "its item id, or its URL (https://host/arcgis/home/item.html?id=<id>, …/sharing/rest/content/items/<id>)"
/// What `--server` says beside an item argument.
let serverBesideItemHelp = "The portal, e.g. https://host/arcgis (default: the item URL's)."

/// The id and portal of an item argument given as an id or URL, with `--server` or not
/// (`ItemReference`); a mistake is a usage error, as ArgumentParser reports them.
func resolveItem(_ text: String, server: String?) throws -> (itemId: String, portal: URL) {
    do {
        return try ItemReference.resolve(text, server: server)
    } catch {
        throw ValidationError(error.description)
    }
}
