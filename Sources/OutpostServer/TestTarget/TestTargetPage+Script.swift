extension TestTargetPage {
    /// The page's script: reads and changes through the control API (same origin), writes
    /// only text into the page (never markup), polls the journal with `since=` once a second.
    static let script = #"""
        "use strict";
        (function () {
          var base = location.pathname.replace(/\/+$/, "").replace(/\/page\.js$/, "");
          var query = new URLSearchParams(location.search);
          // The admin's token: given once as ?token=, kept for this tab only, taken out of the address.
          if (query.get("token")) {
            sessionStorage.setItem("outpost-token", query.get("token"));
            query.delete("token");
            history.replaceState(null, "", location.pathname + (query.toString() ? "?" + query : ""));
          }
          var token = sessionStorage.getItem("outpost-token");
          var status = document.getElementById("status");
          var lastSeq = 0;
          var journalRows = 0;

          function api(path, fields) {
            var headers = token ? { "X-Esri-Authorization": "Bearer " + token } : {};
            var options = { headers: headers, cache: "no-store" };
            if (fields) {
              options.method = "POST";
              var body = new URLSearchParams(fields);
              body.set("f", "json");
              options.body = body;
            } else {
              path += (path.indexOf("?") < 0 ? "?" : "&") + "f=json";
            }
            return fetch(base + "/" + path, options).then(function (response) {
              return response.json().then(function (json) {
                if (json && json.error) {
                  var error = new Error(json.error.code + " " + json.error.message);
                  error.code = json.error.code;
                  throw error;
                }
                return json;
              });
            });
          }

          function report(error) {
            status.textContent = error.code === 499 || error.code === 498 || error.code === 403
              ? "The control API needs an admin's token: open this page as " + base + "/?token=<token>."
              : String(error.message || error);
          }

          function cell(row, text) {
            var td = document.createElement("td");
            td.textContent = text === undefined || text === null ? "" : String(text);
            row.appendChild(td);
            return td;
          }

          function button(td, label, action) {
            var b = document.createElement("button");
            b.type = "button";
            b.textContent = label;
            b.addEventListener("click", function () { action().then(refresh, report); });
            td.appendChild(b);
          }

          function fill(id, items, render) {
            var body = document.querySelector("#" + id + " tbody");
            body.textContent = "";
            items.forEach(function (item) {
              var row = document.createElement("tr");
              render(row, item);
              body.appendChild(row);
            });
          }

          function time(ms) { return ms === undefined ? "" : new Date(ms).toISOString(); }

          function loadClock() {
            return api("clock").then(function (clock) {
              var now = document.getElementById("clock-now");
              now.textContent = time(clock.now);
              now.dataset.ms = clock.now;
              document.getElementById("clock-offset").textContent = (clock.offset / 3600000).toFixed(3) + " h (" + clock.offset + " ms)";
            });
          }

          function loadFaults() {
            return api("faults").then(function (answer) {
              fill("faults", answer.rules || [], function (row, rule) {
                var shown = {};
                Object.keys(rule).forEach(function (key) { if (key !== "id" && key !== "fired") shown[key] = rule[key]; });
                cell(row, rule.id);
                cell(row, JSON.stringify(shown));
                cell(row, rule.fired);
                button(cell(row, ""), "Remove " + rule.id, function () { return api("faults/" + encodeURIComponent(rule.id) + "/delete", {}); });
              });
            });
          }

          function loadJobs() {
            return api("jobs").then(function (answer) {
              fill("jobs", answer.held || [], function (row, job) {
                cell(row, job.jobId);
                cell(row, job.operation);
                cell(row, job.service);
                cell(row, job.step);
                button(cell(row, ""), "Release " + job.jobId, function () { return api("jobs/" + encodeURIComponent(job.jobId) + "/release", {}); });
              });
            });
          }

          function loadSnapshots() {
            return api("snapshots").then(function (answer) {
              fill("snapshots", answer.snapshots || [], function (row, snapshot) {
                cell(row, snapshot.name);
                cell(row, time(snapshot.created));
                cell(row, snapshot.bytes);
                button(cell(row, ""), "Restore " + snapshot.name, function () {
                  return api("snapshots/" + encodeURIComponent(snapshot.name) + "/restore", {});
                });
              });
            });
          }

          function pollJournal() {
            return api("journal?since=" + lastSeq).then(function (answer) {
              var body = document.querySelector("#journal tbody");
              (answer.entries || []).forEach(function (entry) {
                var row = document.createElement("tr");
                if (entry.status >= 400 || entry.errorCode) row.className = "failed";
                [entry.seq, time(entry.time), entry.method, entry.operation, entry.service, entry.status, entry.errorCode, entry.fault]
                  .forEach(function (text) { cell(row, text); });
                body.insertBefore(row, body.firstChild);
                journalRows += 1;
                lastSeq = Math.max(lastSeq, entry.seq);
              });
              while (journalRows > 500) { body.removeChild(body.lastChild); journalRows -= 1; }
              if (typeof answer.last === "number") lastSeq = Math.max(lastSeq, answer.last);
            });
          }

          function refresh() {
            status.textContent = "";
            return Promise.all([loadClock(), loadFaults(), loadJobs(), loadSnapshots()]).catch(report);
          }

          function advance(fields) { return function () { api("clock/advance", fields).then(refresh, report); }; }
          document.getElementById("clock-hour").addEventListener("click", advance({ hours: "1" }));
          document.getElementById("clock-day").addEventListener("click", advance({ days: "1" }));
          document.getElementById("clock-reset").addEventListener("click", function () { api("clock/reset", {}).then(refresh, report); });
          document.getElementById("faults-clear").addEventListener("click", function () { api("faults/clear", {}).then(refresh, report); });
          document.getElementById("fault-form").addEventListener("submit", function (event) {
            event.preventDefault();
            api("faults", { rule: document.getElementById("fault-rule").value }).then(refresh, report);
          });
          document.getElementById("snapshot-form").addEventListener("submit", function (event) {
            event.preventDefault();
            api("snapshots", { name: document.getElementById("snapshot-name").value }).then(refresh, report);
          });

          refresh();
          pollJournal().catch(report);
          setInterval(function () { pollJournal().catch(report); }, 1000);
          setInterval(function () { Promise.all([loadClock(), loadFaults(), loadJobs()]).catch(report); }, 3000);
        })();
        """#
}
