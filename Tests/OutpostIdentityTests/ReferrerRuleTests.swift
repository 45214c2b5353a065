import OutpostIdentity
import Testing

/// `ReferrerRule`: which pages may carry an API key (docs/identity.md, "API keys: what a key
/// reaches"), as a table of entries, pages and answers.
@Suite struct ReferrerRuleTests {
    /// (entry, page, matches)
    static let table: [(String, String, Bool)] = [
        // A prefix: the page and anything below it.
        ("https://foo.com/app/", "https://foo.com/app/", true),
        ("https://foo.com/app/", "https://foo.com/app/page.html?x=1", true),
        ("https://foo.com/app/", "https://foo.com/other/", false),
        ("https://foo.com/app/", "https://foo.com/", false),
        // Scheme and host without case; the path with it.
        ("https://foo.com/app/", "HTTPS://FOO.com/app/x", true),
        ("https://foo.com/app/", "https://foo.com/APP/x", false),
        ("https://foo.com/app/", "http://foo.com/app/x", false),
        // A host is matched whole, never as a prefix of another.
        ("https://foo.com", "https://foo.com", true),
        ("https://foo.com", "https://foo.com/any/page", true),
        ("https://foo.com", "https://foo.com.evil.example/", false),
        ("https://foo.com", "https://foo.com:8443/", false),
        ("https://foo.com:8443", "https://foo.com:8443/x", true),
        // `*`: any run of characters, in the host or the path.
        ("https://*.foo.com/*", "https://maps.foo.com/a/b", true),
        ("https://*.foo.com/*", "https://a.b.foo.com/", true),
        ("https://*.foo.com/*", "https://foo.com/", false),
        ("https://*.foo.com/*", "https://evil.example/?.foo.com/", false),
        ("https://*.foo.com/*", "https://evil.example#.foo.com/", false),
        ("https://foo.com/*/map", "https://foo.com/a/b/map.html", true),
        ("https://foo.com/*/map", "https://foo.com/a/b/list.html", false),
        ("*", "https://anything.example/", true),
        ("http*://foo.com/", "http://foo.com/", true),
        // An Origin (no path) matches an entry of its origin only.
        ("https://foo.com/", "https://foo.com", false),
        ("https://foo.com", "null", false),
    ]

    @Test(arguments: table)
    func entriesMatchPages(_ entry: String, _ page: String, _ expected: Bool) {
        #expect(ReferrerRule.matches(entry: entry, page: page) == expected, "\(entry) against \(page)")
    }

    @Test func noEntryAllowsAnyPageOrNone() {
        let rule = ReferrerRule([])
        #expect(rule.allows(referer: nil, origin: nil))
        #expect(rule.allows(referer: "https://anywhere.example/", origin: nil))
    }

    @Test func withEntriesARefererOrElseAnOriginMustMatch() {
        let rule = ReferrerRule(["https://foo.com/app/", "https://*.bar.org"])
        #expect(rule.allows(referer: "https://foo.com/app/index.html", origin: nil))
        #expect(rule.allows(referer: "https://x.bar.org/page", origin: nil))
        // No Referer (or an empty one): the Origin decides; neither: refused.
        #expect(rule.allows(referer: nil, origin: "https://x.bar.org"))
        #expect(rule.allows(referer: " ", origin: "https://x.bar.org"))
        #expect(!rule.allows(referer: nil, origin: nil))
        #expect(!rule.allows(referer: "", origin: ""))
        // A Referer that does not match is not saved by a matching Origin.
        #expect(!rule.allows(referer: "https://evil.example/", origin: "https://x.bar.org"))
        #expect(!rule.allows(referer: "https://foo.com/other", origin: nil))
        // An Origin stands for its page's root: `…/*` entries take it, a deeper entry does not.
        let rooted = ReferrerRule(["https://good.example/*"])
        #expect(rooted.allows(referer: nil, origin: "https://good.example"))
        #expect(!rooted.allows(referer: nil, origin: "https://good.example.evil.example"))
        #expect(!rule.allows(referer: nil, origin: "https://foo.com"))
    }

    /// The work of a match is bounded: at most 4 stars an entry (registration refuses more),
    /// and a page over 4,096 bytes matches nothing, even an entry that takes any page.
    @Test func aMatchsWorkIsBounded() {
        let busy = "https://" + String(repeating: "*a", count: 4) + "/"
        #expect(AppRegistration.isReferrer(busy) && !AppRegistration.isReferrer("https://*a*a*a*a*a/"))
        let long = "https://h/" + String(repeating: "a", count: ReferrerRule.maximumPageBytes)
        #expect(!ReferrerRule(["https://*"]).allows(referer: long, origin: nil))
        #expect(ReferrerRule(["https://*"]).allows(referer: String(long.prefix(ReferrerRule.maximumPageBytes)), origin: nil))
    }

    @Test func longPagesAreMatchedWithoutBlowingUp() {
        let rule = ReferrerRule(["https://*.foo.com/*a*a*a*a*a*a*b"])
        let page = "https://x.foo.com/" + String(repeating: "a", count: 20_000)
        let start = ContinuousClock.now
        #expect(!rule.allows(referer: page, origin: nil))
        #expect(ContinuousClock.now - start < .seconds(2))
    }
}
