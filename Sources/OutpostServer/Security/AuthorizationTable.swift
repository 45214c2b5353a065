import Hummingbird
import OutpostStorage

/// Authorization as one table (issue 43): every route the server answers and every job step,
/// what each touches and the right it needs, under token security (`serve --require-auth`).
///
/// Two layers decide. `buildRouter` mounts each route behind an admission (`Admission`: open,
/// identifying, viewer, editor, admin), which answers before any body byte is read; the handler then
/// checks the object it touches (`Right`): an item's sharing (`PortalCaller.maySee`,
/// `mayChange`), a user's content (`mayCreate(for:)`, `maySeeFolders(of:)`), the owner of a
/// replica, job, result file, upload or version (`Caller.mayManage`). This table says both for
/// every route; `AuthorizationTableTests` fails on a route the router has and the table does
/// not (or a row no route matches), and `AuthorizationMatrixTests` sends every row's request
/// as an anonymous caller, a viewer, another editor, the owner and an admin, on both backends,
/// and expects what `Row.refusal(_:caller:subject:)` says; then as an API key of the owner's
/// (`Row.apiKeys`, docs/identity.md, "API keys: what a key reaches").
///
/// Where a row says more than a handler does today, the row is the rule (docs/reliability.md,
/// "Authorization table", lists the routes whose handlers do not follow it yet).
public struct AuthorizationTable: Sendable {
    public var rows: [Row]
    public var jobSteps: [JobStep]

    /// The server's table.
    public static let server = AuthorizationTable(
        rows: plainRows + arcgisRows + featureServiceRows + syncRows + versionRows + tileRows + geocodeRows + routeRows + packagingRows + portalRows
            + oauthRows
            + testTargetRows + adminRows + homeRows,
        jobSteps: jobStepRows)

    /// The row a route of the router (`RouteDescription.path.description`, a method) belongs to.
    public func row(method: HTTPRequest.Method, routerPath: String) -> Row? {
        rows.first { $0.routerMethods.contains(method) && $0.routerPaths.contains(routerPath) }
    }

    /// The row whose `path` (as written in the table) is `path`, of `mount` if given.
    public func row(_ path: String, mount: Mount? = nil) -> Row? {
        rows.first { $0.path == path && (mount == nil || $0.mount == mount) }
    }
}

extension AuthorizationTable {
    /// Who the route's mount lets reach the handler with token security on.
    public enum Admission: String, Sendable, CaseIterable {
        /// Anyone; a token is not read (health, static files, the token services, `rest/info`).
        case open
        /// Anyone; a token names its user and a bad one is refused with 498 (the portal's reads,
        /// the web map viewer).
        case identifies
        /// A user's token: none is 499 Token Required, a bad or expired one 498.
        case viewer
        /// An editor's or an admin's token: as `viewer`, and a viewer's is refused with 403.
        case editor
        /// An admin's token: as `viewer`, and a viewer's or an editor's is refused with 403 (a
        /// test target's control API, which reaches every user's requests and the whole state).
        case admin
    }

    /// The HTTP methods a route answers.
    public enum Methods: String, Sendable {
        /// GET only (plain HTTP outside the ArcGIS forms).
        case get
        /// GET and POST alike (the ArcGIS API for Python POSTs reads).
        case read
        /// POST; a GET answers 405 once admitted.
        case change
        /// POST only with token security on (GET too without it, as restapi sends them).
        case stateChanging
    }

    /// Where a row's path is mounted.
    public enum Mount: String, Sendable {
        /// As written, from the server's root.
        case root
        /// Below `/arcgis`.
        case arcgis
        /// Below a service, by name and through a folder (`ServiceRoutes.prefixes`).
        case service
        /// Below `/arcgis/sharing/rest` and `/sharing/rest`.
        case portal
        /// Below `/arcgis/sharing` and `/sharing`, with and without `/rest` (OAuth 2.0).
        case sharing
    }

    /// What a handler reads or changes.
    public enum Object: String, Sendable {
        case nothing, server, folderOfServices, service, layer, feature, attachment, tileService, tile, styleResource, locator, network
        case gpService, gpTask, versionedService, version, replica, replicaJob, exportJob, packagingJob, resultFile, exportOutput, upload
        case item, webMap, userContent, userFolder, user
    }

    /// Who may see what a list answers (`Right.lists`).
    public enum Listing: String, Sendable {
        /// What the caller may see (items by their sharing, versions by their access).
        case visible
        /// What the caller manages: their own, everything for an admin.
        case managed
    }

    /// The right a handler checks on the object it touches, and what a caller without it gets.
    public enum Right: Sendable, Equatable {
        /// Admission is the whole rule: every admitted caller is answered alike.
        case admitted
        /// Nothing is there: every admitted caller gets 404 (the directory's `rest/**`).
        case nothingHere
        /// A signed-in user; an anonymous caller gets `refusal`.
        case signedIn(refusal: Refusal)
        /// Shared with the caller (`PortalCaller.maySee`; versions by their access): private
        /// ones their owner's and admins', org (and protected) ones any user's, public ones
        /// anyone's. Others are answered as missing (`hidden`).
        case visible(hidden: Refusal)
        /// Visible (else `hidden`), then its owner's or an admin's (`mayChange`), else 403.
        case changeable(hidden: Refusal)
        /// Visible (else `hidden`); a public one any admitted caller's to change, any other its
        /// owner's or an admin's, else 403 (a version's edit access, as ArcGIS's).
        case editable(hidden: Refusal)
        /// The content of the user the path names: that user if an editor, or an admin
        /// (`mayCreate(for:)`); others 403.
        case createsFor
        /// The folders of the user the path names: that user or an admin (`maySeeFolders`);
        /// others as missing (`hidden`).
        case foldersOf(hidden: Refusal)
        /// Its owner or an admin (`Caller.mayManage`); others get `refusal`. An object made
        /// without a user (owner '') is the admins'.
        case owner(refusal: Refusal)
        /// A list of only what the caller may see or manage; answered to every admitted caller.
        case lists(Listing)
        /// Several objects named in the form, each changed only if changeable; each refusal is
        /// a failed entry of a 200 answer (`shareItems`).
        case eachChangeable
        /// A form of the home (docs/home.md): refused with 403, whoever sends it, unless it
        /// carries the browser's forms' secret from this origin; the REST operation it then
        /// calls decides as for the signed-in user (a token in the form counts for nothing).
        case homeForm
    }

    /// A refusal: the ArcGIS error code (HTTP status for plain answers), and the start of the
    /// message where the code alone does not tell (the portal answers a hidden item with 400).
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        public var code: Int
        public var message: String?

        public init(_ code: Int, _ message: String? = nil) {
            self.code = code
            self.message = message
        }

        public static let tokenRequired = Refusal(499)
        public static let invalidToken = Refusal(498)
        public static let forbidden = Refusal(403)
        public static let notFound = Refusal(404)
        public static let methodNotAllowed = Refusal(405)
        /// The portal's answer for an item that does not exist or that the caller may not see.
        public static let itemHidden = Refusal(400, "Item does not exist or is inaccessible.")
        public static let folderHidden = Refusal(400, "Folder not found.")
        public static let userHidden = Refusal(404, "User does not exist or is inaccessible.")

        public var description: String { message.map { "\(code) \($0)" } ?? "\(code)" }

        /// Whether an answer's code and message are this refusal.
        public func matches(code: Int, message: String?) -> Bool {
            code == self.code && (self.message == nil || message?.hasPrefix(self.message!) == true)
        }
    }

    /// The object a request touches, as the rights see it: its owner and its access.
    public struct Subject: Sendable, Equatable, CustomStringConvertible {
        /// A user's name; '' for objects made without a user (the admins'); the server's
        /// own items are `outpost`'s.
        public var owner: String
        /// `private`, `org` or `public` (items); `private`, `protected` or `public` (versions).
        public var access: String
        /// Whether an API key's privileges reach it: an item the key names (or, naming none,
        /// one of its owner's), or, below a service, that service's item.
        public var inKeyScope: Bool

        public init(owner: String, access: String = "private", inKeyScope: Bool = false) {
            self.owner = owner
            self.access = access
            self.inKeyScope = inKeyScope
        }

        public var description: String { "\(access) of \(owner.isEmpty ? "nobody" : owner)\(inKeyScope ? ", in the key's scope" : "")" }

        /// Whether `caller` is the owner or an admin (an API key is its owner alone).
        public func isManaged(by caller: ServerUser?) -> Bool {
            guard let caller else { return false }
            let admin = caller.role == .admin && caller.apiKey == nil
            return admin || (!owner.isEmpty && owner.caseInsensitiveCompare(caller.name) == .orderedSame)
        }

        /// Whether `caller` may see it by its access; an API key, a public one, or one in its
        /// scope that its owner may see.
        public func isVisible(to caller: ServerUser?) -> Bool {
            let shared: Bool
            switch access {
            case "public": return true
            case "org", "protected": shared = caller != nil
            default: shared = isManaged(by: caller)
            }
            return shared && (caller?.apiKey == nil || inKeyScope)
        }
    }
}

extension AuthorizationTable {
    /// One route pattern: where it is mounted, its methods, its admission, and what its handler
    /// touches with which right.
    public struct Row: Sendable, CustomStringConvertible {
        public var mount: Mount
        /// The path below the mount, as the controller writes it (`:parameter`, `**`).
        public var path: String
        public var methods: Methods
        public var admission: Admission
        public var touches: Object
        public var right: Right
        /// Also mounted with a folder of the user's after `content/users/:user/` (the portal).
        public var inFolder: Bool
        /// What else the handler checks or decides, in words.
        public var note: String
        /// What an API key reaches on it (`APIKeyReachMiddleware`); by default as its mount
        /// and admission say (`KeyReach.of(_:_:)`).
        public var apiKeys: KeyReach

        public init(
            _ mount: Mount, _ path: String, _ methods: Methods, _ admission: Admission, _ touches: Object, _ right: Right,
            inFolder: Bool = false, apiKeys: KeyReach? = nil, _ note: String = ""
        ) {
            self.apiKeys = apiKeys ?? KeyReach.of(mount, admission)
            self.mount = mount
            self.path = path
            self.methods = methods
            self.admission = admission
            self.touches = touches
            self.right = right
            self.inFolder = inFolder
            self.note = note
        }

        public var description: String { mount == .root ? "/\(path)" : "\(mount.rawValue) \(path)" }

        /// The paths the router holds for this row, as `RouterPath` describes them.
        public var routerPaths: [String] {
            var paths = [path]
            if inFolder, path.hasPrefix("content/users/:user/") {
                paths.append("content/users/:user/:folder/" + path.dropFirst("content/users/:user/".count))
            }
            let prefixes: [String]
            switch mount {
            case .root: prefixes = [""]
            case .arcgis: prefixes = ["arcgis/"]
            case .service: prefixes = ServiceRoutes.prefixes.map { "arcgis/\($0)/" }
            case .portal: prefixes = ["arcgis/sharing/rest/", "sharing/rest/"]
            case .sharing: prefixes = OAuthEndpoints.roots.map { $0 + "/" }
            }
            return prefixes.flatMap { prefix in paths.map { RouterPath(String((prefix + $0).trimmingSuffix("/"))).description } }
        }

        /// The methods the router holds for this row: a change's GET is there to answer 405.
        public var routerMethods: [HTTPRequest.Method] { methods == .get ? [.get] : [.get, .post] }

        /// What the admission answers `caller` (nil: admitted).
        public func admissionRefusal(caller: ServerUser?) -> Refusal? {
            switch admission {
            case .open, .identifies: return nil
            case .viewer: return caller == nil ? .tokenRequired : nil
            case .editor:
                guard let caller else { return .tokenRequired }
                return caller.role < .editor ? .forbidden : nil
            case .admin:
                guard let caller else { return .tokenRequired }
                return caller.role < .admin ? .forbidden : nil
            }
        }

        /// What `caller` gets for `method` on a route of this row touching `subject` (nil:
        /// allowed): the admission first, then what an API key reaches (`keyRefusal`), then
        /// the method, then the right.
        public func refusal(_ method: HTTPRequest.Method, caller: ServerUser?, subject: Subject?) -> Refusal? {
            // A route that reads no token answers an API key as it answers anyone.
            if caller?.apiKey != nil, apiKeys == .open { return refusal(method, caller: nil, subject: subject) }
            if let refused = admissionRefusal(caller: caller) { return refused }
            if let refused = keyRefusal(caller: caller, subject: subject) { return refused }
            if method == .get, methods == .change || methods == .stateChanging { return .methodNotAllowed }
            if right == .nothingHere { return .notFound }
            if case .signedIn(let refusal) = right, caller == nil { return refusal }
            if right == .homeForm { return .forbidden }
            guard let subject else { return nil }
            switch right {
            case .admitted, .nothingHere, .signedIn, .lists, .eachChangeable, .homeForm:
                return nil
            case .visible(let hidden):
                return subject.isVisible(to: caller) ? nil : hidden
            case .changeable(let hidden):
                guard subject.isVisible(to: caller) else { return hidden }
                return subject.isManaged(by: caller) && !keyChangesNothing(caller) ? nil : .forbidden
            case .editable(let hidden):
                guard subject.isVisible(to: caller) else { return hidden }
                return subject.access == "public" || subject.isManaged(by: caller) ? nil : .forbidden
            case .createsFor:
                guard let caller, !keyChangesNothing(caller) else { return .forbidden }
                let named = caller.role == .editor && subject.owner.caseInsensitiveCompare(caller.name) == .orderedSame
                return caller.role == .admin || named ? nil : .forbidden
            case .foldersOf(let hidden):
                return subject.isManaged(by: caller) && !keyChangesNothing(caller) ? nil : hidden
            case .owner(let refusal):
                return subject.isManaged(by: caller) && !keyChangesNothing(caller) ? nil : refusal
            }
        }

        /// For a list (`Right.lists`), whether `subject` is in what `caller` is answered.
        public func lists(_ subject: Subject, to caller: ServerUser?) -> Bool? {
            guard case .lists(let listing) = right else { return nil }
            return listing == .managed ? subject.isManaged(by: caller) : subject.isVisible(to: caller)
        }
    }

    /// A step of an asynchronous job: what it touches and the right it needs of the user who
    /// submitted the job (or, for scheduled work, of the user it runs as).
    public struct JobStep: Sendable, CustomStringConvertible {
        public var name: String
        /// The row of the route that submits it.
        public var submittedAt: String
        public var touches: Object
        public var right: Right
        /// How a caller without the right learns it.
        public var refusedAs: String
        /// Whose the job is and what it makes.
        public var owner: String

        public init(_ name: String, at submittedAt: String, _ touches: Object, _ right: Right, refusedAs: String, owner: String) {
            self.name = name
            self.submittedAt = submittedAt
            self.touches = touches
            self.right = right
            self.refusedAs = refusedAs
            self.owner = owner
        }

        public var description: String { name }

        /// What a submitter gets at this step (nil: it runs), after the submission's editor admission.
        public func refusal(caller: ServerUser?, subject: Subject?) -> Refusal? {
            Row(.service, submittedAt, .change, .editor, touches, right).refusal(.post, caller: caller, subject: subject)
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: Character) -> Substring {
        var text = Substring(self)
        while text.last == suffix { text = text.dropLast() }
        return text
    }
}
