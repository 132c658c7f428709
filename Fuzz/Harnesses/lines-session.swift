// The edit session's line reader under a name of its own: `LineReader` is also the name of the
// `--nl` reader in Repository, and the module `SectionCLI` has a type named `SectionCLI`.
@testable import SectionCLI

typealias SessionLineReader = LineReader
