// The edit session's line reader under a name of its own: `LineReader` is also the name of the
// `--nl` reader in Transfer.
@testable import CommandLineSupport

typealias SessionLineReader = CommandLineSupport.LineReader
