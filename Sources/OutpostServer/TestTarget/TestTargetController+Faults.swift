import Hummingbird
import OutpostWire

extension TestTargetController {
    /// `faults` (list, add), `faults/:id/delete`, `faults/clear`; `jobs` (the held ones),
    /// `jobs/:id/release`, `jobs/:id/fail` (docs/testing-your-app.md, Faults).
    func addFaultRoutes(to routes: RouteCollection<OutpostRequestContext>) {
        let board = target.faults
        routes
            .get("faults") { _, c in RESTResponse.json(["rules": .array(board.rulesJSON)], parameters: c.form.parameters) }
            .post("faults") { _, c in
                guard let text = c.form.parameters["rule"] else { throw ArcGISError.missingParameter("rule") }
                let rule = try board.add(try FaultRule(json: text))
                return RESTResponse.json(["rule": rule], parameters: c.form.parameters)
            }
            .change("faults/clear") { _, c in
                board.clear()
                return RESTResponse.json(["success": true], parameters: c.form.parameters)
            }
            .change("faults/:id/delete") { _, c in
                let id = c.parameters.get("id") ?? ""
                guard board.remove(id) else { throw ArcGISError.notFound("Fault rule '\(id)'") }
                return RESTResponse.json(["success": true, "id": .string(id)], parameters: c.form.parameters)
            }
            .read("jobs") { _, c in
                let held = board.heldJobs.map { job -> JSONValue in
                    [
                        "jobId": .string(job.id), "operation": .string(job.kind.rawValue), "service": .string(job.serviceName),
                        "step": .string(job.status.rawValue),
                    ]
                }
                return RESTResponse.json(["held": .array(held)], parameters: c.form.parameters)
            }
            .change("jobs/:id/release") { _, c in
                let id = c.parameters.get("id") ?? ""
                guard board.endHold(of: id) else { throw ArcGISError.notFound("Held job '\(id)'") }
                return RESTResponse.json(["success": true, "jobId": .string(id)], parameters: c.form.parameters)
            }
            .change("jobs/:id/fail") { _, c in
                let id = c.parameters.get("id") ?? ""
                var error = FaultRule.InjectedError(code: 500, message: "Unable to complete operation.", details: ["The job was failed by a test."])
                if let text = c.form.parameters["error"] {
                    guard let value = try? JSONParser.parse(text) else { throw ArcGISError.invalidParameter("error", "a JSON object.") }
                    error = try FaultRule.injectedError(value, "error")
                }
                guard board.endHold(of: id, failing: error.arcGISError) else { throw ArcGISError.notFound("Held job '\(id)'") }
                return RESTResponse.json(["success": true, "jobId": .string(id)], parameters: c.form.parameters)
            }
    }
}
