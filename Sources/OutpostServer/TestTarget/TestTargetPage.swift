import Hummingbird

/// The control page of a test target (`GET /_outpost/`, docs/testing-your-app.md, "The page and
/// who may use the control API"): the clock, the fault rules, held jobs, snapshots and the
/// journal, live. The page and its script are a shell, the same for everyone: what it shows it
/// asks the control API for, with the admin's token under token security (given once as
/// `?token=`, then kept in the tab's sessionStorage). Its one script is served from here
/// (`page.js`), so the policy allows scripts and requests from this server only.
enum TestTargetPage {
    static let scriptPath = "/\(TestTargetPaths.root)/page.js"

    /// Scripts and requests to this server only; the page's own inline style; no framing.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// Adds the page (at `/_outpost` and `/_outpost/`) and its script to the control API's group
    /// (behind its `ControlAPIGuard`), outside any admission: neither carries anything of the server's.
    static func addRoutes(to group: RouterGroup<OutpostRequestContext>) {
        group.get("") { _, _ in page() }
        group.get(RouterPath(String(scriptPath.dropFirst(TestTargetPaths.root.count + 2)))) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: script)))
        }
    }

    static func page() -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .contentSecurityPolicy: contentSecurityPolicy, .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static let html = """
        <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Outpost test target</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>body{font:14px system-ui,sans-serif;margin:0 1em 2em;max-width:70em}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em}
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:2px 6px;border-bottom:1px solid #ccc;vertical-align:top}
        button{margin:2px}#status{color:#8a1c1c}code{font-size:.95em}textarea{width:100%;font:13px monospace}
        :focus-visible{outline:3px solid #1d5fbf;outline-offset:1px}.failed{color:#8a1c1c}</style></head>
        <body><h1>Outpost test target</h1>
        <p id="status" role="status" aria-live="polite"></p>
        <section aria-labelledby="clock-heading"><h2 id="clock-heading">Clock</h2>
        <p>Now: <output id="clock-now">…</output>; offset: <output id="clock-offset">…</output></p>
        <button type="button" id="clock-hour">Advance 1 hour</button>
        <button type="button" id="clock-day">Advance 1 day</button>
        <button type="button" id="clock-reset">Reset the clock</button></section>
        <section aria-labelledby="faults-heading"><h2 id="faults-heading">Active faults</h2>
        <table id="faults"><caption>Fault rules, in the order they are tried</caption><thead><tr>
        <th scope="col">Id</th><th scope="col">Rule</th><th scope="col">Fired</th><th scope="col">Action</th></tr></thead><tbody></tbody></table>
        <form id="fault-form"><label for="fault-rule">New rule (JSON)</label>
        <textarea id="fault-rule" rows="3">{"operation": "applyEdits", "count": 1, "error": {"code": 500, "message": "Injected"}}</textarea>
        <button type="submit">Add the rule</button> <button type="button" id="faults-clear">Clear all faults</button></form></section>
        <section aria-labelledby="jobs-heading"><h2 id="jobs-heading">Held jobs</h2>
        <table id="jobs"><caption>Jobs held executing by a fault rule</caption><thead><tr>
        <th scope="col">Job</th><th scope="col">Operation</th><th scope="col">Service</th><th scope="col">Step</th><th scope="col">Action</th>
        </tr></thead><tbody></tbody></table></section>
        <section aria-labelledby="snapshots-heading"><h2 id="snapshots-heading">Snapshots</h2>
        <table id="snapshots"><caption>Saved states of the whole server</caption><thead><tr>
        <th scope="col">Name</th><th scope="col">Created</th><th scope="col">Bytes</th><th scope="col">Action</th></tr></thead><tbody></tbody></table>
        <form id="snapshot-form"><label for="snapshot-name">Snapshot name</label> <input id="snapshot-name" name="name" required>
        <button type="submit">Save a snapshot</button></form></section>
        <section aria-labelledby="journal-heading"><h2 id="journal-heading">Journal</h2>
        <table id="journal"><caption>Requests, newest first (live)</caption><thead><tr>
        <th scope="col">Seq</th><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Operation</th><th scope="col">Service</th>
        <th scope="col">Status</th><th scope="col">Error code</th><th scope="col">Fault</th></tr></thead><tbody></tbody></table></section>
        <script src="\(scriptPath)"></script></body></html>
        """
}
