import Hummingbird

/// The home's own files: its style sheet and the few scripts pages load (each part of the
/// home lists its own). Served from memory, from this server only (the pages' policy allows
/// nothing else).
enum HomeAssets {
    static var scripts: [String: String] {
        var all: [String: String] = [:]
        for part in [contentScripts, itemScripts, webMapScripts, uploadScripts, deviceScripts] {
            for (name, script) in part { all[name] = script }
        }
        return all
    }

    /// A file by name: the style sheet or a part's script, and its type.
    static func file(_ name: String) -> (String, String)? {
        if name == "home.css" { return (styleSheet, "text/css; charset=utf-8") }
        return scripts[name].map { ($0, "text/javascript; charset=utf-8") }
    }

    static func response(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=300"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Colours keep a contrast of at least 4.5:1 on their backgrounds (WCAG AA); focus is
    /// always visible; one column on a phone.
    static let styleSheet = """
        :root { --ink: #1b1b1b; --muted: #4a4a4a; --paper: #ffffff; --line: #c4c4c4; --brand: #005a9c; --brand-ink: #ffffff;
          --done: #0b5d1e; --failed: #a4001d; --soft: #f3f5f7; font-family: system-ui, sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; color: var(--ink); background: var(--paper); line-height: 1.5; }
        a { color: var(--brand); }
        :focus-visible { outline: 3px solid #b35c00; outline-offset: 2px; }
        .skip { position: absolute; left: -9999px; }
        .skip:focus { left: 1rem; top: 1rem; background: var(--paper); padding: .5rem; z-index: 10; }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .5rem 1rem; background: var(--brand); color: var(--brand-ink); }
        header a, header button { color: var(--brand-ink); }
        header .brand { margin: 0; font-weight: 700; font-size: 1.2rem; }
        header nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
        header nav a[aria-current] { font-weight: 700; text-decoration-thickness: 3px; }
        header .who { margin-left: auto; display: flex; gap: .75rem; align-items: center; }
        header form { margin: 0; }
        header button { background: transparent; border: 1px solid var(--brand-ink); border-radius: 4px; padding: .2rem .6rem; cursor: pointer; }
        main { max-width: 72rem; margin: 0 auto; padding: 1rem; overflow-wrap: break-word; }
        footer { border-top: 1px solid var(--line); padding: .5rem 1rem; color: var(--muted); }
        h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
        h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { background: var(--soft); }
        .table-wrap { overflow-x: auto; position: relative; }
        .panel { border: 1px solid var(--line); border-radius: 6px; padding: 1rem; margin: 1rem 0; }
        .flash { padding: .5rem 1rem; border-radius: 4px; border-left: 6px solid; }
        .flash.done { border-color: var(--done); background: #e8f5eb; }
        .flash.failed { border-color: var(--failed); background: #fbe9ec; }
        .button, button, input[type=submit] { display: inline-block; background: var(--brand); color: var(--brand-ink); border: 1px solid var(--brand);
          border-radius: 4px; padding: .4rem .9rem; font: inherit; text-decoration: none; cursor: pointer; }
        button.secondary { background: var(--paper); color: var(--brand); }
        button.danger { background: var(--failed); border-color: var(--failed); }
        label { display: block; font-weight: 600; margin-top: .75rem; }
        input, select, textarea { font: inherit; padding: .35rem; border: 1px solid #767676; border-radius: 4px; max-width: 100%; }
        textarea { width: 100%; min-height: 6rem; }
        fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 1rem 0; }
        .hint { color: var(--muted); font-size: .9rem; }
        .tiles { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; }
        .tiles a { display: block; border: 1px solid var(--line); border-radius: 6px; padding: 1rem; text-decoration: none; color: var(--ink); height: 100%; }
        .tiles strong { display: block; color: var(--brand); }
        .facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
        .facts dt { font-weight: 600; }
        .facts dd { margin: 0; }
        .thumb { width: 100px; height: 66px; object-fit: cover; border: 1px solid var(--line); }
        .idle { background: #fff4d6; }
        .thumb.placeholder { display: inline-block; background: var(--soft); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .thumb.large { width: 200px; height: 133px; }
        .item-head { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
        .description { white-space: pre-wrap; }
        ul.codes { margin: 0; padding-left: 1rem; }
        details.inline { display: inline-block; }
        label.inline { display: inline; font-weight: normal; }
        a.button.danger { background: var(--failed); border-color: var(--failed); }
        .inline { display: inline; }
        progress { width: 100%; height: 1.25rem; }
        iframe.preview { width: 100%; height: 24rem; border: 1px solid var(--line); }
        @media (max-width: 40rem) {
          header .who { margin-left: 0; }
          .facts { grid-template-columns: 1fr; }
          th, td { padding: .3rem; }
        }
        """
}
