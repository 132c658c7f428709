import Synchronization

/// What opens `StoreLocation.server` locations. The `Repository` product reaches SQLite alone, so
/// that an app links no server client it does not use; the PostgreSQL backend is the product
/// `RepositoryPostgres`, which registers itself with `PostgreSQLBackend.register()`.
package protocol ServerBackend: Sendable {
    /// The newest server schema version this build knows.
    var schemaVersion: Int { get }

    /// The store's connection to the server `connectionString` names, prepared (refusals
    /// checked, migrated when needed and allowed). `location` is what messages name.
    func openStoreConnection(
        connectionString: String, location: StoreLocation, create: Bool, readOnly: Bool,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws -> any Database

    /// Another connection to the same server, for a reader or an observer.
    func openReaderConnection(connectionString: String) throws -> any Database

    /// `connectionString` as messages may show it, every secret masked.
    func masked(_ connectionString: String) -> String
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

/// The server backend this process registered, if any.
package enum ServerBackends {
    private static let registered = Mutex<(any ServerBackend)?>(nil)

    /// Makes `backend` the one that opens server locations in this process (a later call
    /// replaces an earlier one).
    package static func register(_ backend: any ServerBackend) {
        registered.withLock { $0 = backend }
    }

    /// The registered backend; `nil` when this process registered none.
    package static var current: (any ServerBackend)? {
        registered.withLock { $0 }
    }

    /// The registered backend (`registered`, by default this process's), or the error that
    /// says which product to add.
    package static func required(
        for location: StoreLocation, registered: (any ServerBackend)? = current
    ) throws -> any ServerBackend {
        guard let backend = registered else {
            throw RepositoryError.serverSupportMissing(location: location.description, product: productName)
        }
        return backend
    }

    /// The product that provides the PostgreSQL backend.
    package static let productName = "RepositoryPostgres"
}
