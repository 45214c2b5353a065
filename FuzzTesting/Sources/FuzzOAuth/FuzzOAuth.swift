import FuzzCommon
import OutpostIdentity
import OutpostStorage
import OutpostWire

// The portal's OAuth 2.0 input (docs/identity.md): the query or form of `oauth2/authorize` and
// `oauth2/token`, a sign-in's `oauth_state`, and where a sign-in redirects.
//
// Input: a url-encoded form. Every parameter set is parsed as an authorization request and as a
// token request; a request that parses is sealed and must open to itself (and fail to open under
// another key or with a byte changed); a built-in client's redirect is allowed only to the portal
// or out of band; `state` comes back in the redirect untouched. The API key parsers too: what
// `registerApp` takes (privileges, referrers) keeps its bounds, `apiToken` is 1 or 2, an
// `updateItem` expiration date is within the coming year, and a text is an API key token only
// with its slot at len-10.

private let key = [UInt8](repeating: 7, count: 32)
private let otherKey = [UInt8](repeating: 9, count: 32)
private let portal = ServerAddress(url: "https://maps.example.org:8443")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    let parameters = RequestParameters(FormURLEncoding.decode(bytes: input.bytes))
    if case .apiToken(_, _, let slot)? = try? TokenRequest.parse(parameters) { fuzzCheck(slot == 1 || slot == 2, "apiToken \(slot) was taken") }
    fuzzAPIKeys(parameters)
    if let oauthState = parameters.string("oauth_state") {
        fuzzCheck((try? SealedState.open(oauthState, key: key, now: 0)) == nil, "an oauth_state not sealed here opened")
    }
    guard let request = try? AuthorizationRequest.parse(parameters) else { return 0 }
    if let state = request.state { fuzzCheck(state.utf8.count <= 1024, "a state over 1024 bytes was taken") }
    if let challenge = request.codeChallenge { fuzzCheck(PKCE.isChallenge(challenge), "a malformed challenge was taken") }
    let client = OAuthClient.builtIn("pythonapi")
    if client.allowsRedirect(to: request.redirectURI, portal: portal) {
        let target = ServerAddress(url: request.redirectURI)
        fuzzCheck(
            request.redirectURI == OAuthClient.outOfBand || (target?.host == "maps.example.org" && target?.port == 8443),
            "a built-in client may go to \(request.redirectURI)")
    }
    let sealed = SealedState(request: request, issued: 1_000, browserNonce: "n")
    guard let text = try? sealed.sealed(key: key) else {
        fuzzCheck(false, "a parsed request could not be sealed")
        return 0
    }
    fuzzCheck((try? SealedState.open(text, key: key, now: 2_000)) == sealed, "a sealed state does not open to itself")
    fuzzCheck((try? SealedState.open(text, key: otherKey, now: 2_000)) == nil, "a state opened under another key")
    var altered = Array(text.utf8)
    altered[altered.count / 2] = altered[altered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    fuzzCheck((try? SealedState.open(String(decoding: altered, as: UTF8.self), key: key, now: 2_000)) == nil, "an altered state opened")
    let location = OAuthRedirect.code("c0de", for: request, approvalURL: "https://maps.example.org:8443/arcgis/sharing/oauth2/approval")
    if let state = request.state {
        fuzzCheck(location.hasSuffix("&state=" + FormURLEncoding.percentEncode(state)), "state does not come back untouched: \(location)")
    }
    return 0
}

/// The API key parsers: whatever they take is within the design's bounds.
func fuzzAPIKeys(_ parameters: RequestParameters) {
    if let registration = try? AppRegistration.parse(parameters) {
        fuzzCheck(registration.privileges.count <= APIKeyPrivileges.maximumCount, "more than 64 privileges were taken")
        fuzzCheck(registration.privileges.allSatisfy(APIKeyPrivileges.isPrivilege), "a malformed privilege was taken")
        fuzzCheck(
            registration.httpReferrers.count <= 32 && registration.httpReferrers.allSatisfy(AppRegistration.isReferrer), "a bad referrer was taken")
        // Any page against the taken entries: the match ends (bounded work), and a page that
        // is an entry without its stars matches it.
        let rule = ReferrerRule(registration.httpReferrers)
        _ = rule.allows(referer: parameters.string("referer"), origin: parameters.string("origin"))
        for entry in registration.httpReferrers where !entry.contains("*") {
            fuzzCheck(ReferrerRule.matches(entry: entry, page: entry), "\(entry) does not match itself")
        }
    }
    if let listed = try? APIKeyPrivileges.parseList(parameters.string("privilege")) {
        fuzzCheck(listed.allSatisfy { $0.utf8.count <= APIKeyPrivileges.maximumBytes }, "a privilege over 200 bytes was taken")
    }
    let now: Int64 = 1_800_000_000_000
    if let text = parameters.string("apiToken1ExpirationDate"),
        case .success(let date) = Result(catching: { try APIKeyToken.expirationDate(text, parameter: "d", now: now) })
    {
        fuzzCheck(date.map { $0 > now && $0 <= now + APIKeyToken.maximumLifetime } ?? (Int64(text) == -1), "the date \(text) was taken")
    }
    if let key = parameters.string("key"), let slot = APIKeyToken.slot(of: key) {
        let digit = Array(key.utf8)[key.utf8.count - 10]
        fuzzCheck(Int(digit) - 48 == slot && key.utf8.count == 78, "\(key) is no slot-\(slot) token")
    }
}

@main
enum FuzzOAuthMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
