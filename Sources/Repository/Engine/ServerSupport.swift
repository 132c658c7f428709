/// What opens `StoreLocation.server` locations: the PostgreSQL engine, `.postgres`, from the
/// product `RepositoryPostgres`. The `Repository` product reaches SQLite alone, so that an app
/// links no server client it does not use; an app that opens servers adds the product, imports
/// `RepositoryPostgres`, and passes this value where it opens a store (`location` a server's,
/// such as `StoreLocation("postgresql://localhost/tasks")`):
///
/// ```swift
/// let store = try SectionStore(location: location, server: .postgres, create: true)
/// ```
///
/// Nothing is looked up in a global: a store opened without it refuses a server location with
/// `RepositoryError.serverSupportMissing`, before any connection.
public struct ServerSupport: Sendable {
    /// The backend that opens the connections.
    package let backend: any ServerBackend

    /// Server support through `backend` (what `RepositoryPostgres` makes `.postgres` of).
    package init(_ backend: any ServerBackend) {
        self.backend = backend
    }

    /// `location` as messages show it: a server's connection string rebuilt with every
    /// password masked (`***`), as only the server client can read it; a file's path.
    public func describe(_ location: StoreLocation) -> String {
        guard case .server(let connectionString) = location else { return location.description }
        return backend.masked(connectionString)
    }
}

/// The server side of `ServerSupport`, which `RepositoryPostgres` implements.
package protocol ServerBackend: Sendable {
    /// The newest server schema version this build knows.
    var schemaVersion: Int { get }

    /// The store's connection to the server `connectionString` names, prepared (refusals
    /// checked, migrated when needed and allowed). `location` is what messages name. With
    /// `checkingOnFirstUse`, the check of the schema may go with the first transaction instead,
    /// in its first round trip; its refusals are then thrown there.
    func openStoreConnection(
        connectionString: String, location: StoreLocation, create: Bool, readOnly: Bool, checkingOnFirstUse: Bool,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws -> any Database

    /// Another connection to the same server, for a reader or an observer.
    func openReaderConnection(connectionString: String) throws -> any Database

    /// `connectionString` as messages may show it, every secret masked.
    func masked(_ connectionString: String) -> String
}

extension Optional where Wrapped == ServerSupport {
    /// The support, or the error that says which product to add for `location`.
    package func required(for location: StoreLocation) throws -> ServerSupport {
        guard let self else {
            throw RepositoryError.serverSupportMissing(location: location.description, product: ServerSupport.productName)
        }
        return self
    }

    /// `location` as messages show it: masked by the support (`ServerSupport.describe(_:)`), or
    /// without one, a server's scheme alone (`StoreLocation.description`).
    package func describe(_ location: StoreLocation) -> String {
        self?.describe(location) ?? location.description
    }
}

extension ServerSupport {
    /// The product that provides the PostgreSQL backend.
    package static let productName = "RepositoryPostgres"
}

/// A failure of an engine, which knows the `RepositoryError` it means.
package protocol EngineError: Error {
    /// The error a caller sees for this one at `location`.
    func repositoryError(at location: StoreLocation) -> any Error
    /// Whether the engine refused a write for a deadlock or a serialization failure: the write
    /// may succeed when tried again.
    var isRetryableConflict: Bool { get }
    /// Whether the engine refused a statement for a constraint (unique, foreign key, check).
    var isConstraintViolation: Bool { get }
}
