import ArgumentParser
import Foundation
import OutpostClient

/// Runs a job to its end, drawing a progress bar on a terminal and plain lines otherwise, as
/// its status and messages arrive (and every 100 ms for the bar).
@discardableResult
///
/// With `pauseFile`, Ctrl-C (SIGINT) pauses the job instead of killing it: the job is written
/// to that file (`outpost map resume FILE` goes on from there, in any process) and the
/// command exits with 130.
func runJob<J: LongRunningJob>(_ job: J, title: String, pauseFile: String? = nil) async throws -> J.Output {
    let terminal = isatty(STDOUT_FILENO) != 0
    var interrupt: (any DispatchSourceSignal)?
    if pauseFile != nil {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { job.pause() }
        source.resume()
        interrupt = source
    }
    defer { interrupt?.cancel() }
    job.start()
    var lastTenth = -1
    var printed = 0
    while true {
        let finished = job.status == .succeeded || job.status == .failed
        let progress = job.progress.fractionCompleted
        if terminal {
            let width = 30
            let filled = Int(progress * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            // Unbuffered, so the bar moves as the job does.
            FileHandle.standardOutput.write(Data("\r\(title) [\(bar)] \(Int(progress * 100))% \(job.messages.last?.text ?? "")\u{1B}[K".utf8))
        } else {
            let messages = job.messages
            for message in messages.dropFirst(printed) { print("\(title): \(message.text)") }
            printed = messages.count
        }
        if !terminal, Int(progress * 10) != lastTenth {
            lastTenth = Int(progress * 10)
            print("\(title): \(lastTenth * 10)%")
        }
        if finished { break }
        if job.status == .paused, let pauseFile {
            try job.toJSON().write(to: URL(fileURLWithPath: pauseFile))
            if terminal { print("") }
            print("\(title): paused; go on with: outpost map resume \(pauseFile)")
            throw ExitCode(130)
        }
        try await Task.sleep(for: .milliseconds(100))
    }
    if terminal { print("") }
    return try await job.output
}
