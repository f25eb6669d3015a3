package import Hummingbird
import NIOCore

/// The console's own stylesheet and script, served as files (`/assets/console.css`,
/// `/assets/console.js`): no build step, no CDN, and no inline script, so that the
/// Content-Security-Policy can say `script-src 'self'`. Every page reads without the script; it
/// only filters the list as you type and lints the editor's text as you type.
package enum ConsoleAssets {
    package static func response(_ name: String) -> Response? {
        switch name {
        case "console.css": file(stylesheet, "text/css; charset=utf-8")
        case "console.js": file(script, "text/javascript; charset=utf-8")
        default: nil
        }
    }

    private static func file(_ text: String, _ type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static let stylesheet = """
        :root { --ink: #1d2733; --muted: #5b6875; --line: #d8dee6; --accent: #0b63ce; --ok: #1b7f3b; --warn: #a86400; --bad: #b3261e; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f5f7fa; }
        nav { display: flex; gap: 1.2em; align-items: center; padding: .7em 1.5em; background: #15202b; }
        nav a { color: #dfe7ef; text-decoration: none; } nav a.brand { font-weight: 700; color: #fff; margin-right: 1em; }
        nav .app { color: #9fb3c8; }
        main { padding: 1em 1.5em 3em; max-width: 1400px; }
        h1 { font-size: 1.5em; margin: .3em 0 .8em; } h2 { font-size: 1.15em; margin: 1.4em 0 .5em; }
        table { border-collapse: collapse; background: #fff; width: 100%; }
        th, td { border-bottom: 1px solid var(--line); padding: .4em .6em; text-align: left; vertical-align: top; }
        th { background: #eef2f6; font-weight: 600; }
        code, pre, textarea { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; }
        pre { background: #fff; border: 1px solid var(--line); padding: .7em; overflow: auto; white-space: pre-wrap; word-break: break-all; }
        .status { display: inline-block; padding: 0 .5em; border-radius: 1em; font-size: .85em; border: 1px solid; }
        .status.live { color: var(--ok); } .status.scheduled { color: var(--accent); } .status.ended, .status.never-fires { color: var(--muted); }
        .status.invalid { color: var(--bad); }
        .error { color: var(--bad); } .warning { color: var(--warn); } .muted { color: var(--muted); }
        form.inline { display: flex; flex-wrap: wrap; gap: .6em; align-items: end; margin-bottom: 1em; }
        form.inline label { display: flex; flex-direction: column; font-size: .85em; color: var(--muted); }
        input, select, button { font: inherit; padding: .3em .5em; }
        button { background: var(--accent); color: #fff; border: 0; border-radius: 4px; padding: .4em 1em; cursor: pointer; }
        .phones { display: flex; flex-wrap: wrap; gap: 1.2em; }
        .phone { width: 300px; border: 10px solid #1d1d1f; border-radius: 34px; background: linear-gradient(#6d8fb3, #2f4a66); padding: 2.2em .8em 1.2em; }
        .phone .lang { color: #fff; font-size: .8em; text-align: center; margin-bottom: .8em; }
        .banner { background: rgba(255,255,255,.92); border-radius: 14px; padding: .7em .8em; }
        .banner .from { font-size: .75em; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
        .banner .title { font-weight: 650; } .banner .body { font-size: .95em; }
        .buttons { display: flex; margin-top: .5em; border-top: 1px solid var(--line); }
        .buttons span { flex: 1; text-align: center; padding: .45em 0 .1em; color: var(--accent); }
        .buttons span + span { border-left: 1px solid var(--line); }
        .tap { color: #eef3f8; font-size: .8em; margin-top: .7em; }
        .chain { font-size: .85em; } .chain .hit { font-weight: 700; color: var(--ok); } .chain + .phone { margin-bottom: 1.2em; }
        td.complete { background: #e6f4ea; } td.partial { background: #fff4e0; } td.missing { background: #fce8e6; }
        textarea#editor { width: 100%; min-height: 28em; }
        ul.diagnostics { list-style: none; padding: 0; } ul.diagnostics li { padding: .15em 0; }
        .bar { display: inline-block; height: .9em; background: var(--accent); vertical-align: middle; }
        .notice { background: #fff; border-left: 4px solid var(--accent); padding: .5em .8em; margin: .6em 0; }
        .notice.refused { border-color: var(--bad); }
        svg { max-width: 100%; height: auto; background: #fff; }
        """

    static let script = """
        "use strict";
        // The console's one script: list filtering and lint as you type. Text only ever goes in
        // through textContent, never as markup.
        document.addEventListener("DOMContentLoaded", () => {
          const filter = document.getElementById("filter");
          if (filter) {
            filter.addEventListener("input", () => {
              const needle = filter.value.toLowerCase();
              for (const row of document.querySelectorAll("tr[data-search]")) {
                row.hidden = needle !== "" && !row.dataset.search.includes(needle);
              }
            });
          }
          const editor = document.getElementById("editor");
          const list = document.getElementById("diagnostics");
          if (editor && list && editor.dataset.lint) {
            const token = document.querySelector('meta[name="csrf-token"]').content;
            let timer = null, sent = 0;
            const lint = async () => {
              const mine = ++sent;
              const answer = await fetch(editor.dataset.lint, {
                method: "POST", body: editor.value, credentials: "same-origin",
                headers: { "Content-Type": "application/json", "X-CSRF-Token": token } });
              if (mine !== sent || !answer.ok) return;
              const found = await answer.json();
              list.replaceChildren(...found.diagnostics.map((d) => {
                const item = document.createElement("li");
                item.className = d.severity;
                item.textContent = `${d.line}:${d.column ?? ""} ${d.severity}: ${d.message}`;
                return item;
              }));
              if (found.diagnostics.length === 0) {
                const item = document.createElement("li");
                item.className = "muted";
                item.textContent = "no problems";
                list.replaceChildren(item);
              }
              list.dataset.state = "linted";
            };
            editor.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(lint, 120); });
          }
        });
        """
}
