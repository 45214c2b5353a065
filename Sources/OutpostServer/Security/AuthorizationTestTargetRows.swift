/// The rows of a test target's control API (`serve --test-target`, docs/testing-your-app.md),
/// below `/_outpost`: routes the router holds only when a test target is on. Each moves or
/// reads the whole server (its clock, faults on every request, the journal of everyone's
/// requests, the whole state), so under token security only an admin's token is admitted and
/// API keys are refused; the page and its script are a shell that shows nothing by itself.
extension AuthorizationTable {
    static let testTargetRows: [Row] = [
        Row(.root, "_outpost", .get, .open, .nothing, .admitted, "the control page: a shell whose data comes from the routes below"),
        Row(.root, "_outpost/page.js", .get, .open, .nothing, .admitted, "the control page's script"),
        Row(.root, "_outpost/clock", .read, .admin, .server, .admitted, "the server clock's time and offset"),
        Row(.root, "_outpost/clock/advance", .change, .admin, .server, .admitted, "moves the clock; housekeeping runs"),
        Row(.root, "_outpost/clock/set", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/clock/reset", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/faults", .read, .admin, .server, .admitted, "GET lists the fault rules, POST rule= adds one"),
        Row(.root, "_outpost/faults/:id/delete", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/faults/clear", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/jobs", .read, .admin, .server, .admitted, "every user's held jobs"),
        Row(.root, "_outpost/jobs/:id/release", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/jobs/:id/fail", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/journal", .read, .admin, .server, .admitted, "every user's requests, secrets masked"),
        Row(.root, "_outpost/journal/count", .read, .admin, .server, .admitted),
        Row(.root, "_outpost/journal/verify", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/journal/har", .read, .admin, .server, .admitted),
        Row(.root, "_outpost/journal/clear", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/snapshots", .read, .admin, .server, .admitted, "GET lists the snapshots, POST name= saves one"),
        Row(.root, "_outpost/snapshots/:name/restore", .change, .admin, .server, .admitted, "the whole state, every user's"),
        Row(.root, "_outpost/snapshots/:name/delete", .change, .admin, .server, .admitted),
        Row(.root, "_outpost/reset", .change, .admin, .server, .admitted, "restores the snapshot `start`"),
    ]
}
