import OutpostStorage
import OutpostWire

/// What the portal accepts as a web map's text (`addItem` of a Web Map, `update` of its
/// text): a JSON object with `operationalLayers` (an array) or `baseMap` (an object). Not
/// generic over a backend, so the fuzzer (`FuzzWebMap`) reaches it without one.
public enum WebMapText {
    public static func check(_ text: String) throws {
        let json: JSONValue
        do { json = try JSONParser.parse(text) } catch { throw PortalFailure.invalid("The web map is not JSON: \(error)") }
        guard json.objectValue != nil, json["operationalLayers"]?.arrayValue != nil || json["baseMap"]?.objectValue != nil else {
            throw PortalFailure.invalid("A web map is a JSON object with 'operationalLayers' or 'baseMap'.")
        }
    }
}
