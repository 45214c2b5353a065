// Client-side figures for bench/client.py: generate + download of a replica through the
// client library, and local edits in one transaction. Prints one JSON object per run.
import Foundation
import OutpostClient
import OutpostGeometry
import OutpostWire

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("outpost-bench: \(message)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail("usage: outpost-bench generate URL FILE | local-edits FILE LAYER COUNT") }
let clock = ContinuousClock()

switch command {
case "generate":
    guard arguments.count == 3, let url = URL(string: arguments[1]) else { fail("generate URL FILE") }
    let task = GeodatabaseSyncTask(url: url)
    let started = clock.now
    var parameters = try await task.makeDefaultGenerateGeodatabaseParameters(extent: nil)
    for index in parameters.layerOptions.indices { parameters.layerOptions[index].queryOption = .all }
    let job = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: URL(fileURLWithPath: arguments[2]))
    job.start()
    let geodatabase = try await job.output
    let elapsed = clock.now - started
    let features = try geodatabase.featureTables().reduce(0) { $0 + (try geodatabase.count($1)) }
    geodatabase.close()
    let bytes = ((try FileManager.default.attributesOfItem(atPath: arguments[2]))[.size] as? NSNumber)?.intValue ?? 0
    print(
        #"{"seconds": \#(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18), "features": \#(features), "bytes": \#(bytes)}"#
    )

case "local-edits":
    guard arguments.count == 4, let layerId = Int(arguments[2]), let count = Int(arguments[3]) else { fail("local-edits FILE LAYER COUNT") }
    let geodatabase = try Geodatabase.open(arguments[1])
    defer { geodatabase.close() }
    let table = try geodatabase.featureTable(layerId: layerId)
    let text = table.fields.first { $0.type == .string }?.name
    let number = table.fields.first { $0.type == .integer || $0.type == .double }?.name
    var features: [LocalFeature] = []
    features.reserveCapacity(count)
    for i in 0..<count {
        var attributes = JSONObject()
        if let text { attributes[text] = .string("local \(i)") }
        if let number { attributes[number] = .int(Int64(i % 1000)) }
        features.append(LocalFeature(attributes: attributes, geometry: .point(Point(x: -170 + Double(i % 340), y: -80 + Double(i % 160)))))
    }
    let started = clock.now
    try geodatabase.beginTransaction()
    let added = try geodatabase.addAll(features, to: table)
    let commitStarted = clock.now
    try geodatabase.commitTransaction()
    let commitSeconds = clock.now - commitStarted
    let addSeconds = clock.now - started
    // Updates of the same features, one call each, in one transaction.
    let updateStarted = clock.now
    try geodatabase.beginTransaction()
    for feature in added {
        var changed = LocalFeature(attributes: ["GlobalID": feature["GlobalID"]!])
        if let number { changed[number] = .int(4242) }
        try geodatabase.update(changed, in: table)
    }
    try geodatabase.commitTransaction()
    let updateSeconds = clock.now - updateStarted
    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
    print(
        #"{"adds": \#(count), "add_seconds": \#(seconds(addSeconds)), "add_commit_seconds": \#(seconds(commitSeconds)), "updates": \#(count), "update_seconds": \#(seconds(updateSeconds)), "pending_changes": \#(try geodatabase.localEditCount)}"#
    )

default:
    fail("unknown command \(command)")
}
