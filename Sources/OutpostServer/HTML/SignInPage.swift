import HTTPTypes
import Hummingbird
import OutpostWire

/// The portal's sign-in page (`oauth2/authorize`, and `oauth2/signin` again after a failure):
/// a plain form that works without any script, posting to `…/sharing/oauth2/signin`.
///
/// Clients that sign in without a browser read the page as ArcGIS's: the ArcGIS API for
/// Python takes the first `{…}` of the first line holding one as JSON (`oauth_state`, or
/// `messages` after a failure with `OAUTH_0015`). So the page's first line with a brace is
/// `var oAuthInfo = {…};`, in an inert script block (the policy runs no script), its strings
/// escaped so that no `<`, `>`, `&`, quote, brace or line separator of a value can end it.
struct SignInPage: Sendable {
    /// The sealed state the form posts back; nil: a page that cannot go on (no form).
    var oauthState: String?
    var clientId: String?
    /// The app's title, as its item or the built-in client names it.
    var appTitle: String
    var locale = "en"
    /// What went wrong, shown in an alert.
    var messages: [String] = []
    /// ArcGIS's code of a failed sign-in (`OAUTH_0015`).
    var code: String?
    /// OAuth's error code of a refusal (`invalid_request`, …): a page that cannot go on.
    var error: String?
    /// Where the form posts: `…/sharing/oauth2/signin`.
    var action: String
    /// The name typed before a failed attempt.
    var username: String?
    /// The organisation's OpenID provider's button, when `serve --oidc-issuer` is set.
    var singleSignOn: SingleSignOn?

    /// "Sign in with NAME": a plain link to `…/sharing/oauth2/oidc/start?oauth_state=…`.
    struct SingleSignOn: Sendable {
        var name: String
        var address: String
    }

    /// The code of a sign-in that failed, which the ArcGIS API for Python looks for.
    static let failedSignIn = "OAUTH_0015"

    /// The policy of the page: nothing from elsewhere, no script, its own inline style; the
    /// form posts back here and the sign-in's redirect may go on to `redirectOrigin`.
    static func contentSecurityPolicy(redirectOrigin: String?) -> String {
        let targets = ["'self'"] + (redirectOrigin.map { [$0] } ?? [])
        return "default-src 'none'; style-src 'unsafe-inline'; form-action \(targets.joined(separator: " ")); frame-ancestors 'none'"
    }

    /// `oAuthInfo`, as the line that carries it writes it.
    var info: String {
        var members: [(String, String)] = []
        if let oauthState { members.append(("oauth_state", Self.scriptString(oauthState))) }
        if let clientId { members.append(("client_id", Self.scriptString(clientId))) }
        members += [("appTitle", Self.scriptString(appTitle)), ("locale", Self.scriptString(locale)), ("persist", "false")]
        members.append(("messages", "[" + messages.map(Self.scriptString).joined(separator: ",") + "]"))
        if let code { members.append(("code", Self.scriptString(code))) }
        if let error { members.append(("error", Self.scriptString(error))) }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    var html: String {
        let e = HTMLDirectory.escape
        var lines = [
            "<!DOCTYPE html>",
            "<html lang=\"\(e(locale))\">",
            "<head>",
            "<meta charset=\"utf-8\">",
            "<script type=\"application/x-oauth-info\">var oAuthInfo = \(info);</script>",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<title>Sign in to \(e(appTitle))</title>",
            "<style>\(Self.style)</style>",
            "</head>",
            "<body>",
            "<main>",
            "<h1>Sign in</h1>",
            "<p class=\"app\">to continue to <strong>\(e(appTitle))</strong></p>",
        ]
        if !messages.isEmpty {
            lines.append("<div class=\"alert\" role=\"alert\">" + messages.map { "<p>\(e($0))</p>" }.joined() + "</div>")
        }
        if let oauthState {
            lines += [
                "<form method=\"post\" action=\"\(e(action))\">",
                "<input type=\"hidden\" name=\"oauth_state\" value=\"\(e(oauthState))\">",
                "<label for=\"username\">Username</label>",
                "<input id=\"username\" name=\"username\" type=\"text\" autocomplete=\"username\" autocapitalize=\"none\" spellcheck=\"false\""
                    + " required value=\"\(e(username ?? ""))\">",
                "<label for=\"password\">Password</label>",
                "<input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>",
                "<button type=\"submit\">Sign in</button>",
                "</form>",
            ]
            if let singleSignOn {
                lines.append("<p class=\"sso\"><a href=\"\(e(singleSignOn.address))\">Sign in with \(e(singleSignOn.name))</a></p>")
            }
        }
        lines += ["</main>", "</body>", "</html>", ""]
        return lines.joined(separator: "\n")
    }

    /// The page as an answer: never stored, never framed, under its own policy.
    func response(status: HTTPResponse.Status, redirectOrigin: String?, cookie: String? = nil) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            .contentSecurityPolicy: Self.contentSecurityPolicy(redirectOrigin: redirectOrigin),
        ]
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// `oauth2/approval`, the out-of-band redirect's page: a code in its title
    /// (`<title>SUCCESS code=…</title>`, what the ArcGIS API for Python reads) and its text to
    /// copy; an implicit sign-in's token is in the page's own address (its fragment), which the
    /// server never sees. Only a code's form is shown: the page repeats nothing else.
    static func approval(code: String?) -> Response {
        let code = code.flatMap { text in
            text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) } ? text : nil
        }
        let lines = [
            "<!DOCTYPE html>", "<html lang=\"en\">", "<head>", "<meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            code.map { "<title>SUCCESS code=\($0)</title>" } ?? "<title>SUCCESS</title>", "<style>\(style)</style>", "</head>", "<body>", "<main>",
            "<h1>Signed in</h1>",
            code.map { "<p>Copy this code into the application:</p>\n<p><output id=\"code\">\($0)</output></p>" }
                ?? "<p>The application reads its token from this page's address. You may close this page.</p>",
            "</main>", "</body>", "</html>", "",
        ]
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: contentSecurityPolicy(redirectOrigin: nil),
        ]
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: lines.joined(separator: "\n"))))
    }

    /// A JSON string that stays inside its script line and is read back as written: besides
    /// JSON's own escapes, `<`, `>`, `&`, `'` (the ArcGIS API for Python turns `'` into `"`),
    /// braces, `;` and the line separators are written as `\uXXXX`.
    static func scriptString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<", ">", "&", "'", "{", "}", ";", "\u{2028}", "\u{2029}", "\u{7F}":
                out += unicodeEscape(scalar.value)
            default:
                if scalar.value < 0x20 { out += unicodeEscape(scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The page's look: readable on a phone, keyboard focus visible, no fonts from elsewhere.
    static let style = """
        body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f3f4f6;color:#111827}\
        main{max-width:22rem;margin:10vh auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.2)}\
        h1{margin:0 0 .25rem;font-size:1.5rem}.app{margin:0 0 1.5rem;color:#4b5563}\
        label{display:block;margin:1rem 0 .25rem;font-weight:600}\
        input{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #6b7280;border-radius:4px}\
        button{margin-top:1.5rem;width:100%;padding:.7rem;font:inherit;font-weight:600;color:#fff;background:#1d4ed8;border:0;border-radius:4px;cursor:pointer}\
        input:focus,button:focus{outline:3px solid #93c5fd;outline-offset:1px}\
        .sso{margin-top:1rem;text-align:center}.sso a{display:block;padding:.7rem;color:#1d4ed8;border:1px solid #1d4ed8;border-radius:4px}\
        .alert{padding:.5rem 1rem;margin-bottom:1rem;color:#991b1b;background:#fee2e2;border:1px solid #fca5a5;border-radius:4px}
        """
}
