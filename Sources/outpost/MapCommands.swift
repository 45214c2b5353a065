import ArgumentParser
import Foundation
import OutpostClient

/// `outpost map capabilities|take-offline`: a web map taken offline into a folder with the
/// client library's `OfflineMapTask` (docs/client.md, "Offline maps"), against any portal;
/// `updates|sync|unregister DIR`: the folder kept in step with its services (`OfflineMapSyncTask`);
/// `geocode|suggest|reverse|route DIR`: the tasks it carries, asked offline (`MapTaskCommands.swift`).
struct OfflineMap: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map", abstract: "Take a web map offline into a folder any GIS opens.",
        subcommands: [
            Capabilities.self, TakeOffline.self, Resume.self, AreasList.self, DownloadArea.self, Updates.self, Sync.self, Unregister.self,
            Geocode.self, Suggest.self, Reverse.self, Route.self,
        ])

    struct Source: ParsableArguments {
        @Argument(help: ArgumentHelp("The web map: \(itemArgumentHelp).")) var webMap: String
        @Option(name: .long, help: ArgumentHelp(serverBesideItemHelp)) var server: String?
        @Option(name: .long, help: "A token for the server.") var token: String?
        @Option(name: .long, help: "The area: xmin,ymin,xmax,ymax[,wkid] (default wkid 4326).") var area: String
        @Option(name: .long, help: "The most zoomed-out scale to take (e.g. 147914382); 0: the map's.") var minScale: Double = 0
        @Option(name: .long, help: "The most zoomed-in scale to take; 0: the map's.") var maxScale: Double = 0
        @Flag(name: .long, help: "Leave the basemap out.") var noBasemap = false
        @Option(name: .long, help: "Attachments of: none, all, readonly, editable (default: the map's offline settings).") var attachments: String?
        @Flag(name: .long, help: "Snapshots: register no replica on the server (updateMode noUpdates).") var noUpdates = false
        @Flag(name: .long, help: "Stop at the first layer that cannot go offline (continueOnErrors off).") var strict = false

        func task() throws -> OfflineMapTask {
            let (id, portal) = try resolveItem(webMap, server: server)
            return OfflineMapTask(portal: portal, webMapItemId: id, token: token)
        }

        func parameters(_ task: OfflineMapTask) async throws -> GenerateOfflineMapParameters {
            let numbers = area.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4 || numbers.count == 5 else { throw ValidationError("--area: xmin,ymin,xmax,ymax[,wkid]") }
            var parameters = try await task.makeDefaultGenerateOfflineMapParameters(
                areaOfInterest: Envelope(xmin: numbers[0], ymin: numbers[1], xmax: numbers[2], ymax: numbers[3]),
                spatialReference: SpatialReference(wkid: numbers.count == 5 ? Int(numbers[4]) : 4326), minScale: minScale, maxScale: maxScale)
            parameters.includeBasemap = !noBasemap
            parameters.continueOnErrors = !strict
            if noUpdates { parameters.updateMode = .noUpdates }
            if let attachments {
                let options: [String: ReturnLayerAttachmentOption] = [
                    "none": .none, "all": .allLayers, "readonly": .readOnlyLayers, "editable": .editableLayers,
                ]
                guard let option = options[attachments] else { throw ValidationError("--attachments: none, all, readonly or editable") }
                parameters.returnLayerAttachmentOption = option
            }
            return parameters
        }
    }

    struct Capabilities: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Which layers and tables can go offline for the area, and why not.")
        @OptionGroup var source: Source

        func run() async throws {
            let task = try source.task()
            let plan = try await task.offlineMapCapabilities(parameters: try await source.parameters(task))
            for layer in plan.layers {
                let verdict = layer.capability.supportsOffline ? "offline" : layer.capability.remainsOnline ? "online" : "left out"
                print("\(layer.mapLayerId)\t\(verdict)\t\(layer.title)\(layer.capability.error.map { "\t\($0)" } ?? "")")
            }
            for service in plan.locators + plan.networks { print("task\toffline\t\(service)") }
        }
    }

    struct TakeOffline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "take-offline", abstract: "Take the map offline into a folder.")
        @OptionGroup var source: Source
        @Option(name: .long, help: "The folder to write (absent or empty).") var out: String

        func run() async throws {
            let task = try source.task()
            let job = try await task.makeGenerateOfflineMapJob(
                parameters: try await source.parameters(task), downloadDirectory: URL(fileURLWithPath: out))
            let result = try await runJob(job, title: "map", pauseFile: out + ".job.json")
            for (layer, error) in (result.layerErrors.merging(result.tableErrors) { a, _ in a }).sorted(by: { $0.key < $1.key }) {
                print("not taken: \(layer): \(error.description)")
            }
            for (service, error) in result.taskErrors.sorted(by: { $0.key < $1.key }) { print("not taken: \(service): \(error.description)") }
            print(result.directory.path)
        }
    }

    struct Folder: ParsableArguments {
        @Argument(help: "An offline map folder.") var folder: String
        @Option(name: .long, help: "A token for the services.") var token: String?

        func task() throws -> OfflineMapSyncTask { try OfflineMapSyncTask(offlineMapDirectory: URL(fileURLWithPath: folder), token: token) }
    }

    struct Updates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What the offline map has to send, and whether the services may have changes.")
        @OptionGroup var folder: Folder

        func run() async throws {
            let info = try await folder.task().checkForUpdates()
            print("upload: \(info.uploadAvailability.rawValue)")
            print("download: \(info.downloadAvailability.rawValue)")
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Sync every geodatabase of the offline map with its service.")
        @OptionGroup var folder: Folder
        @Option(name: .long, help: "bidirectional, upload or download.") var direction = "bidirectional"
        @Flag(name: .long, help: "A preplanned area: leave its scheduled updates for later.") var noScheduledUpdates = false
        @Flag(name: .long, help: "Keep each scheduled-update delta applied (deltas/<geodatabase>/).") var keepDeltas = false

        func run() async throws {
            guard let syncDirection = SyncDirection(lenient: direction), syncDirection != .snapshot else {
                throw ValidationError("--direction: bidirectional, upload or download")
            }
            let job = try folder.task().makeOfflineMapSyncJob(
                parameters: OfflineMapSyncParameters(
                    syncDirection: syncDirection, preplannedScheduledUpdatesOption: noScheduledUpdates ? .noUpdates : .downloadAllUpdates,
                    keepGeodatabaseDeltas: keepDeltas))
            let pauseFile = (folder.folder.hasSuffix("/") ? String(folder.folder.dropLast()) : folder.folder) + ".sync.json"
            let result = try await runJob(job, title: "sync", pauseFile: pauseFile)
            Self.report(result)
            if result.hasErrors { throw ExitCode(2) }
        }

        static func report(_ result: OfflineMapSyncResult) {
            if result.isMobileMapPackageReopenRequired { print("reopen required: a geodatabase was downloaded whole") }
            for file in result.keptDeltas { print("kept\t\(file)") }
            for (file, done) in result.results.sorted(by: { $0.key < $1.key }) {
                print("\(file)\tuploaded \(done.editsUploaded) edits, applied \(done.changesApplied) server changes")
                for failure in done.failedEdits { print("\(file)\trefused: \(failure)") }
            }
            for (file, error) in result.errors.sorted(by: { $0.key < $1.key }) { print("\(file)\tfailed: \(error.description)") }
        }
    }

    struct Unregister: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unregister every replica of the offline map (before deleting it).")
        @OptionGroup var folder: Folder

        func run() async throws { try await folder.task().unregisterAll() }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Go on with an offline map job paused by Ctrl-C (<folder>.job.json or <folder>.sync.json), in this process.")
        @Argument(help: "The job file take-offline, download-area or sync wrote.") var file: String
        @Option(name: .long, help: "A token for the server.") var token: String?

        func run() async throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            if let sync = try? OfflineMapSyncJob.fromJSON(data, token: token) {
                let result = try await runJob(sync, title: "sync", pauseFile: file)
                try? FileManager.default.removeItem(atPath: file)
                Sync.report(result)
                if result.hasErrors { throw ExitCode(2) }
                return
            }
            let job = try GenerateOfflineMapJob.fromJSON(data, token: token)
            let result = try await runJob(job, title: "map", pauseFile: file)
            try? FileManager.default.removeItem(atPath: file)
            for (layer, error) in (result.layerErrors.merging(result.tableErrors) { a, _ in a }).sorted(by: { $0.key < $1.key }) {
                print("not taken: \(layer): \(error.description)")
            }
            for (service, error) in result.taskErrors.sorted(by: { $0.key < $1.key }) { print("not taken: \(service): \(error.description)") }
            print(result.directory.path)
        }
    }

    struct AreasList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "areas", abstract: "The web map's preplanned areas: id, status, title, packages.")
        @Argument(help: ArgumentHelp("The web map: \(itemArgumentHelp).")) var webMap: String
        @Option(name: .long, help: ArgumentHelp(serverBesideItemHelp)) var server: String?
        @Option(name: .long, help: "A token for the server.") var token: String?

        func run() async throws {
            let (id, portal) = try resolveItem(webMap, server: server)
            for area in try await OfflineMapTask(portal: portal, webMapItemId: id, token: token).preplannedMapAreas() {
                print("\(area.id)\t\(area.status)\t\(area.title)\t\(area.packages.count) packages")
            }
        }
    }

    struct DownloadArea: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download-area", abstract: "Download a preplanned area into a folder (registered copies, or scheduled updates).")
        @Argument(help: ArgumentHelp("The map area: \(itemArgumentHelp).")) var area: String
        @Option(name: .long, help: ArgumentHelp(serverBesideItemHelp)) var server: String?
        @Option(name: .long, help: "A token for the server.") var token: String?
        @Option(name: .long, help: "The folder to write (absent or empty).") var out: String
        @Option(name: .long, help: "sync, scheduled or none (default: scheduled when the packages keep deltas).") var updates: String?
        @Flag(name: .long, help: "Leave the basemap out.") var noBasemap = false

        func run() async throws {
            let (id, portal) = try resolveItem(area, server: server)
            let task = try await OfflineMapTask.forMapArea(id, portal: portal, token: token)
            guard let chosen = try await task.preplannedMapAreas().first(where: { $0.id == id }) else {
                throw ValidationError("\(id) is not an area of its web map")
            }
            var parameters = try await task.makeDefaultDownloadPreplannedOfflineMapParameters(area: chosen)
            if let updates {
                let modes: [String: PreplannedUpdateMode] = [
                    "sync": .syncWithFeatureServices, "scheduled": .downloadScheduledUpdates, "none": .noUpdates,
                ]
                guard let mode = modes[updates] else { throw ValidationError("--updates: sync, scheduled or none") }
                parameters.updateMode = mode
            }
            parameters.includeBasemap = !noBasemap
            let job = try await task.makeDownloadPreplannedOfflineMapJob(
                area: chosen, parameters: parameters, downloadDirectory: URL(fileURLWithPath: out))
            let result = try await runJob(job, title: "map", pauseFile: out + ".job.json")
            for (layer, error) in result.layerErrors.sorted(by: { $0.key < $1.key }) { print("not taken: \(layer): \(error.description)") }
            print(result.directory.path)
        }
    }
}
