/// The portal's rows and the job steps (`AuthorizationTable`). Items are shared as
/// docs/portal.md, "Sharing", says: an item a caller may not see is answered as one that does
/// not exist (400, as ArcGIS's portal answers), one they may see but not change is 403.
extension AuthorizationTable {
    static let portalRows: [Row] = [
        Row(.portal, "", .read, .identifies, .nothing, .admitted),
        Row(.portal, "info", .read, .identifies, .nothing, .admitted),
        Row(.portal, "portals/self", .read, .identifies, .server, .admitted, "the caller's user, if a token names one"),
        Row(
            .portal, "portals/:portal/roles", .read, .identifies, .nothing, .signedIn(refusal: .forbidden),
            "'self' or the portal's id; custom roles: none"),
        Row(
            .portal, "portals/:portal/isServiceNameAvailable", .read, .editor, .nothing, .admitted,
            "whether publish would take a name (feature or tile service): a publisher's question"),
        Row(.portal, "portals/:portal/users", .read, .identifies, .user, .signedIn(refusal: .forbidden), "the members, to a member"),
        Row(
            .portal, "portals/:portal/invite", .change, .admin, .user, .admitted,
            "built-in members with passwords; a taken name or a weak password is listed in notInvited"),
        Row(
            .portal, "portals/:portal/updateuserrole", .change, .admin, .user, .admitted,
            "a member's role; the organisation keeps an administrator"),
        Row(
            .portal, "portals/:portal/update", .change, .admin, .server, .admitted,
            "the organisation's geocode and route services (geocodeService, routeServiceLayer); nothing else is kept"),
        Row(
            .portal, "community/users/:user/delete", .change, .admin, .user, .admitted,
            "a member without items; not oneself, not the last administrator"),
        Row(
            .portal, "portals/self/apiKeys", .read, .identifies, .user, .signedIn(refusal: .tokenRequired), apiKeys: .refused,
            "the caller's apps with API keys (an admin's: everyone's); never a token or secret; never an API key"),
        Row(.portal, "generateToken", .stateChanging, .open, .user, .admitted, "as tokens/generateToken"),
        Row(.portal, "community/self", .read, .identifies, .user, .signedIn(refusal: .forbidden)),
        Row(.portal, "community/users/:user", .read, .identifies, .user, .signedIn(refusal: .userHidden), "any user's profile to any user"),
        Row(
            .portal, "community/users/:user/sessions", .read, .identifies, .user, .owner(refusal: .forbidden), apiKeys: .refused,
            "the user's live sign-ins, to the user and administrators; never an API key"),
        Row(
            .portal, "community/users/:user/sessions/:session/revoke", .change, .identifies, .user, .owner(refusal: .forbidden),
            apiKeys: .refused, "ends one of the user's sign-ins with its access tokens"),
        Row(.portal, "search", .read, .identifies, .item, .lists(.visible)),
        Row(.portal, "content/items/:item", .read, .identifies, .item, .visible(hidden: .itemHidden)),
        Row(.portal, "content/items/:item/data", .read, .identifies, .item, .visible(hidden: .itemHidden)),
        Row(
            .portal, "content/items/:item/relatedItems", .read, .identifies, .item, .visible(hidden: .itemHidden),
            "only related items the caller may see"),
        Row(.portal, "content/items/:item/groups", .read, .identifies, .item, .visible(hidden: .itemHidden)),
        Row(.portal, "content/items/:item/resources", .read, .identifies, .item, .visible(hidden: .itemHidden)),
        Row(.portal, "content/items/:item/resources/**", .read, .identifies, .item, .visible(hidden: .itemHidden)),
        Row(.portal, "content/items/:item/info/**", .read, .identifies, .item, .visible(hidden: .itemHidden), "the thumbnail"),
        Row(.portal, "content/items/:item/share", .change, .editor, .item, .changeable(hidden: .itemHidden)),
        Row(.portal, "content/items/:item/unshare", .change, .editor, .item, .changeable(hidden: .itemHidden)),
        Row(
            .portal, "content/users/:user", .read, .identifies, .userContent, .lists(.visible), apiKeys: .refused,
            "the items of the user the caller may see; the user's folders only to the user and admins; no key lists content"),
        Row(.portal, "content/users/:user/:folder", .read, .identifies, .userFolder, .foldersOf(hidden: .folderHidden)),
        Row(.portal, "content/users/:user/items/:item", .read, .identifies, .item, .visible(hidden: .itemHidden), inFolder: true),
        Row(.portal, "content/users/:user/items/:item/status", .read, .identifies, .item, .visible(hidden: .itemHidden), inFolder: true),
        Row(
            .portal, "content/users/:user/items/:item/registeredAppInfo", .read, .identifies, .item, .owner(refusal: .itemHidden), inFolder: true,
            apiKeys: .refused,
            "the app's secret and apiKey: its item's owner and admins only; never an API key"),
        Row(
            .portal, "content/users/:user/addItem", .change, .editor, .userContent, .createsFor, inFolder: true,
            "originItemId: that item must be changeable; dataUrl: a file of the caller's (export output or result file)"),
        Row(.portal, "content/users/:user/items/:item/update", .change, .editor, .item, .changeable(hidden: .itemHidden), inFolder: true),
        Row(
            .portal, "content/users/:user/items/:item/delete", .change, .editor, .item, .changeable(hidden: .itemHidden), inFolder: true,
            "a map area takes the packages the caller may change with it"),
        Row(.portal, "content/users/:user/items/:item/share", .change, .editor, .item, .changeable(hidden: .itemHidden), inFolder: true),
        Row(.portal, "content/users/:user/items/:item/unshare", .change, .editor, .item, .changeable(hidden: .itemHidden), inFolder: true),
        Row(
            .portal, "content/users/:user/items/:item/addResources", .change, .editor, .item, .changeable(hidden: .itemHidden), inFolder: true),
        Row(
            .portal, "content/users/:user/items/:item/updateResources", .change, .editor, .item, .changeable(hidden: .itemHidden),
            inFolder: true),
        Row(
            .portal, "content/users/:user/items/:item/removeResources", .change, .editor, .item, .changeable(hidden: .itemHidden),
            inFolder: true),
        Row(.portal, "content/users/:user/shareItems", .change, .editor, .item, .eachChangeable),
        Row(.portal, "content/users/:user/createFolder", .change, .editor, .userContent, .createsFor),
        Row(
            .portal, "content/users/:user/publish", .change, .editor, .item, .changeable(hidden: .itemHidden), inFolder: true,
            "of the file item (itemID); the service it makes is the organisation's, its name new"),
        Row(
            .portal, "content/features/analyze", .read, .editor, .item, .visible(hidden: .itemHidden),
            "a CSV item's (itemid) or the text given, as publish will read it; changes nothing"),
        Row(
            .portal, "content/users/:user/addRelationship", .change, .editor, .item, .changeable(hidden: .itemHidden),
            "of the origin item; the destination must be visible"),
        Row(
            .portal, "content/users/:user/deleteRelationship", .change, .editor, .item, .changeable(hidden: .itemHidden),
            "as addRelationship"),
        Row(.portal, "**", .read, .identifies, .nothing, .nothingHere, "anything else under sharing/rest: ArcGIS's 404 envelope"),
    ]

    static let jobStepRows: [JobStep] = [
        JobStep(
            "createReplica (async)", at: "FeatureServer/createReplica", .service, .admitted, refusedAs: "—",
            owner: "the caller: the job, the replica and its result file"),
        JobStep(
            "synchronizeReplica (async)", at: "FeatureServer/synchronizeReplica", .replica, .owner(refusal: .forbidden),
            refusedAs: "403 before the job is made", owner: "the replica's owner: the job and its result file"),
        JobStep(
            "exportTiles, estimateExportTilesSize", at: "MapServer/exportTiles", .tileService, .admitted, refusedAs: "—",
            owner: "the caller: the job and its package"),
        JobStep(
            "CreateMapArea", at: "GPServer/:task/submitJob", .webMap, .changeable(hidden: .itemHidden),
            refusedAs: "the job fails: 'not a web map you can see', 'Only the web map's owner or an administrator creates its areas.'",
            owner: "the caller: the map area item"),
        JobStep(
            "CreateMapArea of a map area (a new schedule)", at: "GPServer/:task/submitJob", .item, .changeable(hidden: .itemHidden),
            refusedAs: "the job fails: 'Only the area's owner or an administrator reschedules it.'", owner: "the area's owner"),
        JobStep(
            "SetupMapArea", at: "GPServer/:task/submitJob", .item, .changeable(hidden: .itemHidden),
            refusedAs: "the job fails: 'not a map area you can see', 'Only the area's owner or an administrator packages it.'",
            owner: "the area's owner: the package items and the replicas they hold"),
        JobStep(
            "RefreshMapAreaPackage", at: "GPServer/:task/submitJob", .item, .changeable(hidden: .itemHidden),
            refusedAs: "that package's state is failed: 'Only the package's owner or an administrator refreshes it.'",
            owner: "the package's owner"),
        JobStep(
            "scheduled refresh (ScheduledRefresher)", at: "—", .item, .changeable(hidden: .itemHidden),
            refusedAs: "runs as the area's owner; skipped when the owner is not a user", owner: "the area's owner"),
        JobStep(
            "deleting a map area", at: "content/users/:user/items/:item/delete", .item, .changeable(hidden: .itemHidden),
            refusedAs: "a package the caller may not change only loses its relationship", owner: "—"),
        JobStep(
            "deleting a tile service (its item)", at: "content/users/:user/items/:item/delete", .item, .changeable(hidden: .itemHidden),
            refusedAs: "403: the service is the organisation's (owner outpost), an administrator's to delete", owner: "—"),
        JobStep(
            "deleting a feature service (its item)", at: "content/users/:user/items/:item/delete", .item, .changeable(hidden: .itemHidden),
            refusedAs: "403: the service is the organisation's (owner outpost); 409 while replicas are registered with it", owner: "—"),
    ]
}
