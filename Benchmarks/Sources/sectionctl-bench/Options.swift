/// The benchmark's scenarios, by the names `--scenario` takes.
enum Scenario: String, CaseIterable, Sendable {
    /// 1. A move between the ends of a section at 1K and 1M rows; a move deep inside.
    case ends
    /// 2. Position writes per move: random moves, and always at index 1.
    case writes
    /// 3. One move through the Repository vs one single-row UPDATE in C.
    case single
    /// 4. A session of 1,000 moves saved as one transaction.
    case session
    /// 5. A move vs the seed-001 design (the whole list rewritten as JSON on every save).
    case seed
    /// 6. Bulk insert rate (C), import rate vs that, and `--nl` import peak memory.
    case `import`
    /// 7. Reads at any size: a row, a row's path, a window and a deep move, 1K vs 1M rows.
    case reads
    /// 8. Change delivery: an observer's latency for another process's commits, and its idle cost.
    case observe
    /// 9. Whole `show`, `show --json` and `export` at 10K and 1M rows: peak memory, time vs C.
    case stream
    /// 10. Native import of a 5 MB and a 50 MB document: peak memory.
    case native
    /// 11. A session of one move on 1M rows vs one committed move; its peak memory vs at 10K.
    case largeSession = "large-session"
    /// 12. `sectionctl demo` as a whole process.
    case demo
    /// 13. `sectionctl ui`'s first screen in tmux at 1K vs 1M rows.
    case ui
    /// 14. On a PostgreSQL server: a move and an import vs raw libpq, 16 clients, an observer.
    case postgres
    /// 15. A table view's read (`row(at:)`) while a 1M-row import runs in the same store, vs idle.
    case readDuringImport = "read-during-import"
    /// 16. Many sections of one row each: a row read and a move between sections, 1K vs 1M sections.
    case sections
    /// 17. Short commands as whole processes: `--version`, `row get`, `row move` vs a C process.
    case start
    /// 18. Large changes taken back: undo of a 1M-row import; delete and undo of a 100K-row section.
    case undo
    /// 19. The write-ahead log while an edit session is open and another store commits.
    case wal
    /// 20. Replicas through the sync service: a sync's cost vs the list's size, a clone's memory, a
    /// sync of 1,000 offline edits, a local move vs a file, a pull, many replicas at once, events.
    case replica
    /// 21. Fixtures made as users make them: moves after a `sectionctl import` of 1M rows vs a
    /// C-built list, a small import into a 10M-row file vs an empty one, 100,000 lists vs 10,000.
    case shapes

    var summary: String {
        switch self {
        case .ends: return "row move S:0 <-> S:end at 1K and 1M rows (and one deep inside)"
        case .writes: return "position writes per move: random moves, and always at index 1"
        case .single: return "one move through the Repository vs one single-row UPDATE in C"
        case .session: return "a session of 1,000 moves saved as one transaction"
        case .seed: return "a move vs the seed-001 design (whole list rewritten as JSON)"
        case .import: return "bulk insert rate (C), import rate vs it, --nl import peak memory"
        case .reads: return "row at n/2, its path by id, a 50-row window, a deep move: 1K vs 1M rows"
        case .observe: return "an observer's latency for another process's commits, and its idle CPU"
        case .stream: return "show, show --json, export at 10K and 1M rows: peak memory, time vs C SELECT"
        case .native: return "native import of a 5 MB and a 50 MB document: peak memory; linear in lists and sections"
        case .largeSession: return "a session of one move on 1M rows vs one move; its peak memory vs 10K"
        case .demo: return "sectionctl demo, a whole process, as a new user first runs it"
        case .ui: return "sectionctl ui's first screen in tmux: 1K vs 1M rows"
        case .postgres: return "on a PostgreSQL server: a move and an import vs libpq, 16 clients on one list, an observer"
        case .readDuringImport: return "row(at:) on one list while a 1M-row import writes another, vs the same read idle"
        case .sections: return "sections of one row: row get S:0 and row move S:0 T:0 at s/2, 1K vs 1M sections"
        case .start: return "--version, row get, row move as whole processes: time and peak memory vs a C process"
        case .undo: return "undo and redo of a 1M-row import; delete and undo of a 100K-row section vs plain DELETE and INSERT"
        case .wal: return "the -wal file while an edit session is open and another store commits 2,000 moves"
        case .replica: return "replicas through the sync service: a sync at 1M vs 1K rows, 1,000 offline edits, many replicas at once, event streams"
        case .shapes:
            return "1,000 moves after a 1M-row sectionctl import vs a C-built list; 10 rows imported into 10M vs none; 100K lists vs 10K"
        }
    }
}

/// The command line of `sectionctl-bench`.
struct Options {
    var scenarios: [Scenario] = Scenario.allCases
    var quick = false
    var long = false
    var markdown = false
    var commitEach = false
    var rounds: Int?
    var directory: String?
    var sectionctl: String?
    var cache: String?

    static let usage = """
        usage: sectionctl-bench [--quick] [--long] [--scenario NAME[,NAME…]]… [--rounds N] [--commit-each]
                                [--markdown] [--directory DIR] [--sectionctl PATH] [--cache DIR]

        Measures sectionctl against a C baseline that calls the SQLite C API directly with the
        same pragmas (WAL, synchronous=FULL), in the same run, and prints a table of ratios and
        targets (docs/benchmarks.md explains each scenario).

          --quick            small sizes: a smoke run of about half a minute
          --long             also build a 10M-row section for the reads scenario's growth figure
          --scenario NAMES   run only these scenarios (comma-separated or repeated):
        \(Scenario.allCases.map { "                       \($0.rawValue.padding(8)) \($0.summary)" }.joined(separator: "\n"))
          --rounds N         repetitions behind each median (default 15, quick 5)
          --commit-each      commit every move of scenario 2 on its own (slow: one fsync each)
                             instead of in edit sessions of 1,000
          --markdown         print the table as Markdown
          --directory DIR    where the temporary databases go (default: the system's temporary
                             directory); a directory is created inside it and removed at the end
          --sectionctl PATH  the sectionctl binary for the import scenario (default: the one
                             next to this program)
          --cache DIR        keep the shapes scenario's 10M-row file in DIR and reuse it in later
                             runs (it is built by C, which takes minutes; the runs work on a copy)
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var chosen: [Scenario] = []
        var remaining = arguments[...]
        func value(for option: String) throws(UsageError) -> String {
            guard let next = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return next
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick": options.quick = true
            case "--long": options.long = true
            case "--markdown": options.markdown = true
            case "--commit-each": options.commitEach = true
            case "--scenario", "--scenarios":
                for name in try value(for: argument).split(separator: ",") {
                    guard let scenario = Scenario(rawValue: String(name)) else {
                        let names = Scenario.allCases.map(\.rawValue).joined(separator: ", ")
                        throw UsageError("unknown scenario '\(name)'; choose from \(names)")
                    }
                    if !chosen.contains(scenario) { chosen.append(scenario) }
                }
            case "--rounds":
                let text = try value(for: argument)
                guard let rounds = Int(text), rounds > 0 else { throw UsageError("--rounds needs a positive integer, not '\(text)'") }
                options.rounds = rounds
            case "--directory": options.directory = try value(for: argument)
            case "--sectionctl": options.sectionctl = try value(for: argument)
            case "--cache": options.cache = try value(for: argument)
            case "--help", "-h": throw UsageError(nil)
            default: throw UsageError("unknown option '\(argument)'")
            }
        }
        if !chosen.isEmpty {
            options.scenarios = Scenario.allCases.filter { chosen.contains($0) }
        }
        return options
    }
}

/// A malformed command line; `message` is nil for `--help`.
struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}

/// The sizes and repetition counts of a run: the full run, or `--quick`.
struct Plan {
    /// Rows of the small and the huge section (scenario 1).
    let smallSection: Int
    let hugeSection: Int
    /// Repetitions behind each median, and moves timed in each.
    let rounds: Int
    let movesPerRound: Int
    let deepMovesPerRound: Int
    /// Lookups timed in each round (scenario 7).
    let readsPerRound: Int
    /// Scenario 8.
    let observedChanges: Int
    let idleObserverSeconds: Int
    /// Scenario 2.
    let randomSectionRows: Int
    let randomMoves: Int
    let adversarialSectionRows: Int
    let adversarialOperations: Int
    /// Moves or inserts per edit session when scenario 2 batches them.
    let sessionBatch: Int
    /// Scenario 4.
    let sessionMoves: Int
    let sessionSectionRows: Int
    /// Scenario 11: the moves of one long session on the huge section.
    let longSessionMoves: Int
    /// Scenario 5.
    let seedListRows: Int
    /// Scenario 6.
    let bulkRecords: Int
    let fieldsPerRecord: Int
    let memorySmallRecords: Int
    let memoryLargeRecords: Int
    /// Scenario 7.
    let streamSmallRows: Int
    let streamLargeRows: Int
    /// Scenario 8.
    let nativeSmallBytes: Int
    let nativeLargeBytes: Int
    /// Lists (and sections) of the smaller import of scenario 8's scaling rows.
    let nativeScalingSmall: Int
    /// Scenario 16: sections of one row each in the small and the huge list; lookups timed in
    /// the library per round in each.
    let manySectionsSmall: Int
    let manySectionsLarge: Int
    let sectionLookupsSmall: Int
    let sectionLookupsLarge: Int
    /// Scenario 17: the rows of the section the commands address; runs of each command per round.
    let startSectionRows: Int
    let startRunsPerRound: Int
    /// Scenario 18: the rows of the import taken back (and of the smaller one its peak memory is
    /// compared with), of the section deleted and undone, and the rounds of that.
    let undoImportRows: Int
    let undoImportSmallRows: Int
    let undoSectionRows: Int
    let undoRounds: Int
    let undoRepetitions: Int
    /// With --long: the rows of the one-section import whose peak memory is reported.
    let longImportRows: Int
    /// Scenario 19: the moves committed while a session is open.
    let walCommits: Int
    /// Scenario 14: the section a single move is timed in; the bulk import (its size, sections and
    /// repetitions); the clients moving rows of one list at once, and the list; the changes an
    /// observer receives.
    let serverMoveSectionRows: Int
    let serverImportRows: Int
    let serverImportSections: Int
    let serverImportRepetitions: Int
    let serverClients: Int
    let serverClientMoves: Int
    let serverClientListRows: Int
    let serverClientSections: Int
    let serverObservedChanges: Int
    /// Scenario 21: the one-row sections of the imported and the C-built list, the moves made in
    /// each through the library (in rounds of `shapeMovesPerRound`) and as whole processes; the
    /// rows of the large file a small import lands in, and that import's rows; the lists of the
    /// smaller many-lists import (the larger has ten times as many).
    let shapeSections: Int
    let shapeMoves: Int
    let shapeMovesPerRound: Int
    let shapeMoveProcesses: Int
    let shapeLargeFileRows: Int
    let shapeSmallImportRows: Int
    let shapeLists: Int

    init(options: Options) {
        let quick = options.quick
        smallSection = 1_000
        hugeSection = quick ? 100_000 : 1_000_000
        rounds = options.rounds ?? (quick ? 5 : 15)
        movesPerRound = quick ? 20 : 50
        deepMovesPerRound = quick ? 2 : 4
        readsPerRound = quick ? 200 : 1_000
        observedChanges = quick ? 20 : 100
        idleObserverSeconds = quick ? 2 : 10
        randomSectionRows = 1_000
        randomMoves = quick ? 5_000 : 100_000
        adversarialSectionRows = 1_000
        adversarialOperations = quick ? 2_000 : 20_000
        sessionBatch = 1_000
        sessionMoves = 1_000
        sessionSectionRows = 10_000
        longSessionMoves = quick ? 10_000 : 40_000
        seedListRows = quick ? 10_000 : 100_000
        bulkRecords = quick ? 5_000 : 50_000
        fieldsPerRecord = 5
        memorySmallRecords = quick ? 1_000 : 10_000
        memoryLargeRecords = quick ? 30_000 : 300_000
        streamSmallRows = 10_000
        streamLargeRows = quick ? 100_000 : 1_000_000
        nativeSmallBytes = quick ? 500_000 : 5_000_000
        nativeLargeBytes = quick ? 5_000_000 : 50_000_000
        nativeScalingSmall = quick ? 1_000 : 10_000
        manySectionsSmall = 1_000
        manySectionsLarge = quick ? 100_000 : 1_000_000
        sectionLookupsSmall = quick ? 100 : 200
        sectionLookupsLarge = quick ? 10 : 5
        startSectionRows = 1_000
        startRunsPerRound = quick ? 5 : 20
        undoImportRows = quick ? 100_000 : 1_000_000
        undoImportSmallRows = quick ? 10_000 : 100_000
        undoSectionRows = quick ? 20_000 : 100_000
        undoRounds = min(rounds, 3)
        undoRepetitions = min(rounds, 3)
        longImportRows = quick ? 1_000_000 : 10_000_000
        walCommits = quick ? 500 : 2_000
        serverMoveSectionRows = 10_000
        serverImportRows = quick ? 20_000 : 100_000
        serverImportSections = 4
        serverImportRepetitions = min(rounds, 3)
        serverClients = 16
        serverClientMoves = quick ? 50 : 500
        serverClientListRows = 2_000
        serverClientSections = 4
        serverObservedChanges = quick ? 50 : 100
        shapeSections = quick ? 100_000 : 1_000_000
        shapeMoves = quick ? 200 : 1_000
        shapeMovesPerRound = quick ? 20 : 100
        shapeMoveProcesses = quick ? 5 : 20
        shapeLargeFileRows = quick ? 1_000_000 : 10_000_000
        shapeSmallImportRows = 10
        shapeLists = quick ? 1_000 : 10_000
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
