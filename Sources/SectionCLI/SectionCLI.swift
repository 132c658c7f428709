import Foundation
import Repository

/// The sectionctl command-line interface.
public enum SectionCLI {
    /// Runs the command line in `CommandLine.arguments` and exits with its status.
    public static func main() -> Never {
        exit(0)
    }
}
