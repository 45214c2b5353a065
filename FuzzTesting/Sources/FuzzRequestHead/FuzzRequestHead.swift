import FuzzCommon
import OutpostWire

// What a request's head says of where it comes from and goes to: `Origin`, `Referer`, `Host`,
// `Access-Control-Request-Headers`, a `serverUrl` and a `--public-url`, six newline-separated
// fields (WebOrigin, ServerAddress; CrossOriginPolicy and the token exchange decide with them).
//
// Oracles: a canonical origin is a fixed point, `http(s)://` and an authority of the allowed
// characters, with nothing after it; a `Referer`'s origin is canonical; a header list echoed
// back holds no character that could end a header or start another; a server address parsed
// from a URL or a `Host` comes back equal from its own origin, with a port in range; a public
// URL's origin is a fixed point.

private func checkCanonical(_ origin: String, _ described: String) {
    fuzzCheck(origin.hasPrefix("http://") || origin.hasPrefix("https://"), "\(described): canonical \(origin)")
    fuzzCheck(WebOrigin.canonical(origin) == origin, "\(described): canonical \(origin) is not a fixed point")
    let authority = origin.drop { $0 != ":" }.dropFirst(3)
    fuzzCheck(!authority.isEmpty && !authority.contains("/"), "\(described): canonical \(origin) has no plain authority")
}

private func checkAddress(_ address: ServerAddress, _ described: String) {
    fuzzCheck((1...65_535).contains(address.port), "\(described): port \(address.port)")
    fuzzCheck(ServerAddress.isHost(Substring(address.host)), "\(described): host \(address.host)")
    fuzzCheck(ServerAddress(url: address.origin) == address, "\(described): \(address.origin) reads back otherwise")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let fields = FuzzInput(start, count).fields(6)
    let (origin, referer, host, headers, serverURL, publicURL) = (fields[0], fields[1], fields[2], fields[3], fields[4], fields[5])
    if let canonical = WebOrigin.canonical(origin) { checkCanonical(canonical, "Origin \(origin.debugDescription)") }
    if let page = WebOrigin.origin(ofAddress: referer) { checkCanonical(page, "Referer \(referer.debugDescription)") }
    _ = WebOrigin.authority(of: origin)
    _ = WebOrigin.isAddressOrLocalhost(host)
    if WebOrigin.isHeaderList(headers) {
        fuzzCheck(headers.utf8.count <= WebOrigin.maximumHeaderListBytes, "a header list of \(headers.utf8.count) bytes echoed")
        fuzzCheck(!headers.unicodeScalars.contains { [0, 10, 13, 58, 59].contains($0.value) || !$0.isASCII }, "echoed \(headers.debugDescription)")
    }
    if let address = ServerAddress(url: serverURL) { checkAddress(address, "serverUrl \(serverURL.debugDescription)") }
    for scheme in ["http", "https"] {
        if let address = ServerAddress(scheme: scheme, authority: host) { checkAddress(address, "Host \(host.debugDescription)") }
    }
    if let origin = ServerAddress.origin(ofPublicURL: publicURL) {
        fuzzCheck(ServerAddress.origin(ofPublicURL: origin) == origin, "public-url \(publicURL.debugDescription) → \(origin) is no fixed point")
    }
    return 0
}

@main
enum FuzzRequestHeadMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
