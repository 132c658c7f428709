/// Colours and emphasis for human output, or none.
///
/// Colour is used only when the stream is a terminal, `NO_COLOR` is not set (to anything, even
/// an empty string), and `TERM` is set and is not `dumb`.
package struct Style: Sendable {
    /// Whether escape sequences are written at all.
    package var isEnabled: Bool

    /// A style that writes colour when `isEnabled`.
    package init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// Plain text only.
    package static let plain = Style(isEnabled: false)

    /// The style for a stream, from whether it is a terminal and from the environment.
    package static func forStream(isTerminal: Bool, environment: [String: String]) -> Style {
        guard isTerminal, environment["NO_COLOR"] == nil else { return .plain }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return .plain }
        return Style(isEnabled: true)
    }

    /// Section headers and topic rows.
    package func bold(_ text: String) -> String { wrap(text, "1") }
    /// Paths, ids, footers and absent values.
    package func dim(_ text: String) -> String { wrap(text, "2") }
    /// Footers.
    package func italic(_ text: String) -> String { wrap(text, "3") }
    /// Section indexes.
    package func cyan(_ text: String) -> String { wrap(text, "36") }
    /// Field labels.
    package func yellow(_ text: String) -> String { wrap(text, "33") }
    /// Successful saves.
    package func green(_ text: String) -> String { wrap(text, "32") }
    /// The word "error".
    package func red(_ text: String) -> String { wrap(text, "1;31") }

    private func wrap(_ text: String, _ code: String) -> String {
        isEnabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
