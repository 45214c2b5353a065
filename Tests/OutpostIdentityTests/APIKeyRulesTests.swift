import OutpostIdentity
import OutpostWire
import Testing

/// The pure rules of API keys (docs/identity.md, "API keys: issuing"): privileges, token
/// text and lifetime, the referrers and `apiToken` of the requests.
@Suite struct APIKeyRulesTests {
    @Test func privilegesAreAJSONArrayOfWellFormedNames() throws {
        let parsed = try APIKeyPrivileges.parse(
            #"["premium:user:geocode","portal:app:access:item:0123456789abcdef0123456789abcdef","features:user:edit","features:user:edit"]"#)
        #expect(parsed == ["premium:user:geocode", "portal:app:access:item:0123456789abcdef0123456789abcdef", "features:user:edit"])
        #expect(try APIKeyPrivileges.parse(nil) == nil && APIKeyPrivileges.parse("[]") == [])
        #expect(APIKeyPrivileges.itemIds(parsed ?? []) == ["0123456789abcdef0123456789abcdef"])
        for bad in [
            "premium:user:geocode", #"{"a":1}"#, #"["geocode"]"#, #"["premium:geocode"]"#, #"["premium::geocode"]"#, #"["premium:user:geo code"]"#,
            #"["premium:user:geo/code"]"#, #"["portal:app:access:item:"]"#, #"["portal:app:access:item:a:b"]"#, #"[1]"#,
            "[\"a:b:\(String(repeating: "c", count: 200))\"]",
            // An item privilege spelt otherwise would name no item and widen the key: refused.
            #"["PORTAL:APP:ACCESS:ITEM:0123456789abcdef0123456789abcdef"]"#, #"["Portal:app:access:item:0123456789abcdef0123456789abcdef"]"#,
            #"["portal:app:access:item:0123456789ABCDEF0123456789ABCDEF"]"#,
            #"["portal:app:access:item:abc123"]"#,
            "[" + (0...64).map { "\"a:b:c\($0)\"" }.joined(separator: ",") + "]",
        ] {
            #expect(throws: ArcGISError.self, "\(bad.prefix(60))") { try APIKeyPrivileges.parse(bad) }
        }
        #expect(try APIKeyPrivileges.parseList("premium:user:geocode, features:user:edit") == ["premium:user:geocode", "features:user:edit"])
        #expect(try APIKeyPrivileges.parseList(nil) == [])
        #expect(throws: ArcGISError.self) { try APIKeyPrivileges.parseList("geocode") }
    }

    @Test func aTokenCarriesItsSlotTenCharactersFromTheEnd() {
        for slot in 0...2 {
            let token = APIKeyToken.make(slot: slot)
            #expect(token.count == 78 && token.hasPrefix(slot == 0 ? "AAPK" : "AAPT"), "\(token)")
            // ArcGIS REST JS's slotForKey: the character at len - 10.
            let digit = token[token.index(token.endIndex, offsetBy: -10)]
            #expect(digit == Character(String(slot)))
            #expect(APIKeyToken.slot(of: token) == slot)
            #expect(token.dropFirst(4).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
        #expect(APIKeyToken.make(slot: 1) != APIKeyToken.make(slot: 1), "random")
        let one = APIKeyToken.make(slot: 1)
        for bad in ["", "AAPK" + one.dropFirst(4), String(one.dropLast()), "AAPX" + one.dropFirst(4), one.uppercased(), one.replacingSlot("3")] {
            #expect(APIKeyToken.slot(of: bad) == nil, "\(bad)")
        }
    }

    @Test func aTokenLivesAYearOrUntilItsSlotsDate() throws {
        let now: Int64 = 1_800_000_000_000
        let year = APIKeyToken.maximumLifetime
        #expect(year == 365 * 86_400_000)
        #expect(try APIKeyToken.expiry(configured: nil, now: now) == now + year)
        #expect(try APIKeyToken.expiry(configured: now + 5000, now: now) == now + 5000)
        #expect(throws: ArcGISError.self) { try APIKeyToken.expiry(configured: now - 1, now: now) }
        #expect(try APIKeyToken.expirationDate("-1", parameter: "apiToken1ExpirationDate", now: now) == nil)
        #expect(try APIKeyToken.expirationDate(String(now + year), parameter: "d", now: now) == now + year)
        for bad in [String(now - 1), String(now), String(now + year + 1), "soon", "", "1.5"] {
            #expect(throws: ArcGISError.self, "\(bad)") { try APIKeyToken.expirationDate(bad, parameter: "d", now: now) }
        }
    }

    @Test func registrationTakesAPIKeysPrivilegesAndReferrers() throws {
        let asked = try AppRegistration.parse(
            RequestParameters([
                ("itemId", "abc"), ("appType", "apikey"), ("privileges", #"["portal:app:access:item:fedcba9876543210fedcba9876543210"]"#),
                ("httpReferrers", #"["https://*.foo.com/*","http://bar.example/app/"]"#),
            ]))
        #expect(asked.appType == "apikey" && asked.privileges == ["portal:app:access:item:fedcba9876543210fedcba9876543210"])
        #expect(asked.httpReferrers == ["https://*.foo.com/*", "http://bar.example/app/"] && asked.redirectURIs.isEmpty)
        for bad in [
            #"["ftp://foo.com"]"#, #"["foo.com"]"#, #"["https://"]"#, #"["https://a b.com"]"#, #"["https://foo.com/#x"]"#, #"["https://u@foo.com"]"#,
            "[\"https://foo.com/\(String(repeating: "a", count: 2048))\"]",
            "[" + (0...32).map { "\"https://h\($0).com\"" }.joined(separator: ",") + "]",
            "https://foo.com",
        ] {
            #expect(throws: ArcGISError.self, "\(bad.prefix(60))") {
                try AppRegistration.parse(RequestParameters([("itemId", "abc"), ("appType", "apikey"), ("httpReferrers", bad)]))
            }
        }
        #expect(throws: ArcGISError.self) {
            try AppRegistration.parse(RequestParameters([("itemId", "abc"), ("appType", "apikey"), ("privileges", #"["geocode"]"#)]))
        }
    }

    @Test func theTokenEndpointTakesApiTokenOneOrTwo() throws {
        let base = [("grant_type", "client_credentials"), ("client_id", "app"), ("client_secret", "s")]
        #expect(try TokenRequest.parse(RequestParameters(base)) == .clientCredentials(clientId: "app", secret: "s"))
        #expect(
            try TokenRequest.parse(RequestParameters(base + [("apiToken", "2"), ("regenerateApiToken", "true")]))
                == .apiToken(clientId: "app", secret: "s", slot: 2))
        for bad in ["0", "3", "x", "1.0"] {
            #expect(throws: ArcGISError.self, "\(bad)") { try TokenRequest.parse(RequestParameters(base + [("apiToken", bad)])) }
        }
    }
}

extension String {
    fileprivate func replacingSlot(_ digit: Character) -> String {
        var characters = Array(self)
        characters[count - 10] = digit
        return String(characters)
    }
}
