import OutpostIdentity
import OutpostStorage
import OutpostWire
import Testing

/// docs/identity.md, "Single sign-on (OpenID Connect)": who a verified ID token signs in as.
@Suite struct OIDCUserMappingTests {
    static func claims(_ changes: [String: JSONValue?]) -> IDTokenClaims {
        var claims: JSONObject = ["iss": "https://id.example.org", "sub": "f81d4fae-7dec-11d0-a765", "aud": "outpost"]
        for (name, value) in changes { claims[name] = value }
        return IDTokenClaims(
            issuer: "https://id.example.org", subject: claims["sub"]?.stringValue ?? "", audience: ["outpost"], expires: 0, nonce: nil, claims: claims
        )
    }

    static func user(_ changes: [String: JSONValue?], _ mapping: OIDCUserMapping = OIDCUserMapping()) throws -> ServerUser {
        try mapping.user(from: claims(changes))
    }

    @Test func theNameComesFromTheClaimThenTheEmailThenTheSubject() throws {
        #expect(try Self.user(["preferred_username": "ada", "email": "lovelace@example.org"]) == ServerUser(name: "ada", role: .viewer))
        #expect(try Self.user(["email": "ada.lovelace@example.org"]).name == "ada.lovelace")
        #expect(try Self.user(["preferred_username": "", "email": "ada@example.org"]).name == "ada", "an empty claim is no name")
        #expect(
            try Self.user(["email": "ada@example.org", "email_verified": false]).name == "f81d4fae-7dec-11d0-a765",
            "an unverified address is not used")
        #expect(try Self.user(["email": "ada@example.org", "email_verified": true]).name == "ada")
        #expect(try Self.user(["email": "no-at-sign"]).name == "f81d4fae-7dec-11d0-a765")
        #expect(try Self.user([:]).name == "f81d4fae-7dec-11d0-a765")
        #expect(try Self.user(["preferred_username": 42]).name == "f81d4fae-7dec-11d0-a765", "a claim that is no string is no name")
        let upn = OIDCUserMapping(usernameClaim: "upn")
        #expect(try Self.user(["upn": "ada@corp.example", "preferred_username": "x"], upn).name == "ada_corp.example")
        #expect(try Self.user(["preferred_username": "x"], upn).name == "f81d4fae-7dec-11d0-a765")
    }

    @Test(arguments: [
        ("Ada Lovelace", "Ada_Lovelace"), ("adà", "ad_"), ("a/b\\c", "a_b_c"), ("日本語", "___"), ("..", "__"), (".", "_"),
        ("a.b-c_d", "a.b-c_d"), ("0123456789abcdef0123456789ABCDEF", "0123456789abcdef0123456789ABCDEF_"),
        (String(repeating: "x", count: 100), String(repeating: "x", count: 64)), ("👩‍💻x", "_x"),
        ("OutPost", "OutPost_"),
    ])
    func namesAreMadeValidUserNames(from: String, expected: String) throws {
        let name = try Self.user(["preferred_username": .string(from)]).name
        #expect(name == expected)
        #expect(throws: Never.self) { try Credentials.check(name: name, password: "long enough") }
    }

    @Test func theRoleIsTheHighestTheClaimNames() throws {
        let mapping = OIDCUserMapping(roleClaim: "roles")
        #expect(try Self.user(["roles": "Editor"], mapping).role == .editor)
        #expect(try Self.user(["roles": ["viewer", "ADMIN", "editor"]], mapping).role == .admin)
        #expect(try Self.user(["roles": ["org_publisher", "staff"]], mapping).role == .editor)
        #expect(try Self.user(["roles": "org_admin"], mapping).role == .admin)
        #expect(try Self.user(["roles": "org_user"], mapping).role == .viewer)
        #expect(try Self.user(["roles": ["staff", 3]], mapping).role == .viewer, "none known: the default")
        #expect(try Self.user([:], mapping).role == .viewer)
        #expect(try Self.user(["roles": ["admin": true]], mapping).role == .viewer, "an object is no role list")
        #expect(try Self.user(["roles": "viewer"], OIDCUserMapping(roleClaim: "roles", defaultRole: .editor)).role == .viewer, "the claim wins")
        #expect(try Self.user([:], OIDCUserMapping(roleClaim: "roles", defaultRole: .editor)).role == .editor)
        #expect(try Self.user(["roles": "admin"]).role == .viewer, "no role claim configured: always the default")
    }

    @Test func aDottedRoleClaimIsAPath() throws {
        let keycloak = OIDCUserMapping(roleClaim: "realm_access.roles")
        #expect(try Self.user(["realm_access": ["roles": ["offline_access", "editor"]]], keycloak).role == .editor)
        #expect(
            try Self.user(["realm_access.roles": "admin", "realm_access": ["roles": ["editor"]]], keycloak).role == .admin,
            "a claim of that name first")
        #expect(try Self.user(["realm_access": "editor"], keycloak).role == .viewer)
    }

    @Test func noNameAtAllIsRefused() {
        #expect(throws: ArcGISError.self) { try Self.user(["sub": nil]) }
    }
}
