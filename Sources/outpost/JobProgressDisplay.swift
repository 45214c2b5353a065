import Foundation
import OutpostClient

/// Runs a job to its end, drawing a progress bar on a terminal and plain lines otherwise, as
/// its status and messages arrive (and every 100 ms for the bar).
@discardableResult
func runJob<J: LongRunningJob>(_ job: J, title: String) async throws -> J.Output {
    let terminal = isatty(STDOUT_FILENO) != 0
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
        try await Task.sleep(for: .milliseconds(100))
    }
    if terminal { print("") }
    return try await job.output
}
