import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A replica's token, kept beside its file and never in it (a file passed on carries no
/// credential): `FILE.token`, readable and writable by its owner alone, holding one line of JSON,
/// `{"server": ADDRESS, "token": TOKEN}`. The address is the one the replica file names: a file
/// changed to name another server is refused before anything is sent there.
enum ReplicaCredentials {
    private struct Contents: Codable {
        var server: String
        var token: String
    }

    /// Where the token of the replica at `file` is kept.
    static func path(beside file: String) -> String { file + ".token" }

    /// Writes a new token file at `path` with mode 0600; refuses one that exists.
    static func write(server: String, token: String, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = Array((try? encoder.encode(Contents(server: server, token: token))) ?? Data()) + [0x0A]
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw RepositoryError.replica(.tokenMissing(path: path, reason: String(cString: strerror(errno))))
        }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            unlink(path)
            throw RepositoryError.replica(.tokenMissing(path: path, reason: String(cString: strerror(errno))))
        }
    }

    /// Removes the token file at `path` left by a clone interrupted before its replica took its
    /// name (the replica file is gone, the token file is one); refuses anything else there.
    static func removeLeftover(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        guard let data = FileManager.default.contents(atPath: path), (try? JSONDecoder().decode(Contents.self, from: data)) != nil else {
            throw RepositoryError.replica(.fileExists(path: path))
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The endpoint the replica `store` syncs with: the address its file names, with the token
    /// kept beside it, which must be for that same address.
    static func endpoint(of store: SectionStore, record: ReplicaRecord) throws -> SyncEndpoint {
        let path = path(beside: store.path)
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            throw RepositoryError.replica(.tokenMissing(path: path, reason: "no such file"))
        } catch {
            throw RepositoryError.replica(.tokenMissing(path: path, reason: "not a token file"))
        }
        guard contents.server == record.server else {
            throw RepositoryError.replica(.serverChanged(file: record.server, token: contents.server))
        }
        // The address was checked when the replica was cloned, plain http by the user's choice included.
        return try SyncEndpoint(record.server, token: contents.token, allowPlainHTTP: true)
    }

    /// Gives the finished clone at `partial` its name `path`, refusing to replace anything there.
    static func moveIntoPlace(_ partial: String, to path: String) throws {
        guard link(partial, path) == 0 else {
            if errno == EEXIST { throw RepositoryError.replica(.fileExists(path: path)) }
            throw RepositoryError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        unlink(partial)
    }
}
