import Foundation
import OutpostStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A file mapped read-only, whose pages already read can be handed back: reading a large
/// file from start to end then keeps only a window of it resident (a process's peak memory
/// counts the mapped pages it touched), where reading it into an array holds all of it.
final class MappedFile {
    let buffer: UnsafeBufferPointer<UInt8>
    private var released = 0
    /// Pages are handed back this many bytes at a time (one `madvise` per step).
    static let releaseStep = 8 << 20

    init(path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw StoreError.importFailed("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw StoreError.importFailed("cannot read \(path): \(String(cString: strerror(errno)))") }
        let size = Int(status.st_size)
        guard size > 0 else {
            buffer = UnsafeBufferPointer(start: nil, count: 0)
            return
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw StoreError.importFailed("cannot map \(path): \(String(cString: strerror(errno)))")
        }
        _ = madvise(address, size, MADV_SEQUENTIAL)
        buffer = UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self), count: size)
    }

    deinit {
        if let base = buffer.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), buffer.count) }
    }

    /// Hands back the whole pages before `offset`; touched again, they are read from the file.
    func release(upTo offset: Int) {
        guard let base = buffer.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let end = min(offset, buffer.count) / page * page
        guard end - released >= Self.releaseStep else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base + released), end - released, MADV_DONTNEED)
        released = end
    }

    /// Hands back every page (before a second pass from the start).
    func releaseAll() {
        guard let base = buffer.baseAddress else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), buffer.count, MADV_DONTNEED)
        released = 0
    }
}
