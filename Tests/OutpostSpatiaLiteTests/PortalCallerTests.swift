import OutpostService
import OutpostStorage
import OutpostWire
import Testing

/// Who sees and changes portal items (docs/portal.md, "Sharing"): one row per caller and
/// item access, as the table there has it.
@Suite struct PortalCallerTests {
    static let ada = PortalCaller.user(ServerUser(name: "ada", role: .editor))
    static let bob = PortalCaller.user(ServerUser(name: "bob", role: .editor))
    static let vic = PortalCaller.user(ServerUser(name: "vic", role: .viewer))
    static let root = PortalCaller.user(ServerUser(name: "root", role: .admin))

    static func item(_ access: ItemAccess) -> PortalItem {
        PortalItem(id: "aaaa0000000000000000000000000001", owner: "Ada", title: "t", type: "Web Map", access: access, created: 0)
    }

    /// caller, access → (sees, changes)
    static let rows: [(String, PortalCaller, ItemAccess, Bool, Bool)] = [
        ("owner, private", ada, .private, true, true),
        ("admin, private", root, .private, true, true),
        ("editor, private", bob, .private, false, false),
        ("viewer, private", vic, .private, false, false),
        ("anonymous, private", .anonymous, .private, false, false),
        ("operator, private", .unrestricted, .private, true, true),
        ("editor, org", bob, .org, true, false),
        ("viewer, org", vic, .org, true, false),
        ("anonymous, org", .anonymous, .org, false, false),
        ("anonymous, public", .anonymous, .public, true, false),
        ("editor, public", bob, .public, true, false),
    ]

    @Test(arguments: rows.indices) func seesAndChanges(_ row: Int) {
        let (name, caller, access, sees, changes) = Self.rows[row]
        #expect(caller.maySee(Self.item(access)) == sees, "\(name)")
        #expect(caller.mayChange(Self.item(access)) == changes, "\(name)")
    }

    @Test func whoCreatesForWhom() {
        #expect(Self.ada.mayCreate(for: "ADA"))
        #expect(!Self.ada.mayCreate(for: "bob"))
        #expect(Self.root.mayCreate(for: "bob"))
        #expect(!Self.vic.mayCreate(for: "vic"))
        #expect(!PortalCaller.anonymous.mayCreate(for: "ada"))
        #expect(PortalCaller.unrestricted.mayCreate(for: "anyone"))
        #expect(PortalCaller(user: nil, securityOn: true) == .anonymous)
        #expect(PortalCaller(user: nil, securityOn: false) == .unrestricted)
    }
}
