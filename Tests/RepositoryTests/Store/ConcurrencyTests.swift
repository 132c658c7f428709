import Foundation
import TestSupport
import Testing

@testable import Repository

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test(arguments: Backend.all) func threadsSharingOneStoreLoseNothing(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await store.list("default").async.apply(.addSection(title: "A"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<40 {
                        try store.list("default").apply(.addRow(.text("\(worker)-\(index)"), to: .init(section: .index(0), index: .end)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let rows = try await store.list("default").async.snapshot().sections[0].rows.map(\.title)
        #expect(rows.count == 320)
        #expect(Set(rows).count == 320)
        // Each worker's rows keep their own order.
        for worker in 0..<8 {
            let own = rows.filter { $0.hasPrefix("\(worker)-") }
            #expect(own == (0..<40).map { "\(worker)-\($0)" })
        }
        #expect(try await store.list("default").async.snapshot().version == 321)
    }

    @Test(arguments: Backend.all) func separateConnectionsWritingOneFileLoseNothing(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        try await fixture.list.async.apply(.addSection(title: "A"))
        try await fixture.list.async.apply(.addSection(title: "B"))
        let stores = try (0..<4).map { _ in try fixture.reopen() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (worker, store) in stores.enumerated() {
                group.addTask {
                    for index in 0..<30 {
                        try store.list("default").apply(.addRow(.text("\(worker)-\(index)"), to: .at(worker % 2, 0)))
                        if index % 3 == 0 {
                            try store.list("default").apply(.moveRow(.at(worker % 2, 0), to: .init(section: .index(1 - worker % 2), index: .end)))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let snapshot = try await fixture.list.async.snapshot()
        #expect(snapshot.rowCount == 120)
        #expect(Set(snapshot.sections.flatMap { $0.rows.map(\.id) }).count == 120)
        #expect(snapshot.version == ListVersion(2 + 120 + 40))
    }

    @Test(arguments: Backend.all) func aSessionSavedWhileAnotherWriterWorksIsAConflictNotALoss(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        try await fixture.list.async.apply(.addSection(title: "A"))
        let session = try fixture.list.beginEditing()
        try session.apply(.addRow(.text("mine"), to: .at(0, 0)))
        let other = try fixture.reopen()
        try await Task.detached {
            for index in 0..<10 { try other.list("default").apply(.addRow(.text("theirs \(index)"), to: .at(0, 0))) }
        }.value
        // A conflict, naming both versions: not `.busy`, which would mean the save only waited.
        #expect(throws: RepositoryError.conflict(list: "default", sessionVersion: 1, currentVersion: 11)) { try session.save() }
        #expect(try await fixture.list.async.snapshot().rowCount == 10)
    }
}
