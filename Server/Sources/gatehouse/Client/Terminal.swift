import Foundation
import Gatehouse

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prompts on the terminal. Questions go to standard error, so standard output stays clean for `--json`.
enum Terminal {
    static func say(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// The catalog's message `key` in the terminal's language (``TerminalLanguage``).
    static func words(_ key: String, _ arguments: [String: String] = [:]) -> String {
        TerminalLanguage.wording(key, arguments).text
    }

    /// A question ending where the person types: the catalog's message `key` and a space.
    static func question(_ key: String, _ arguments: [String: String] = [:]) -> String {
        words(key, arguments) + " "
    }

    /// Says where to go on with `url` (printed, so the person may open it anywhere on this machine) and, when `open`,
    /// opens it in the desktop's browser. `key` is the message that says so, given the `url` and `arguments`.
    static func showInBrowser(_ url: URL, _ key: String, _ arguments: [String: String] = [:], open: Bool) {
        say(words(key, arguments.merging(["url": url.absoluteString]) { own, _ in own }))
        if open { LoopbackUserAgent.openInSystemBrowser(url) }
    }

    /// Asks for a line; the end of input is an error that says how to run without a terminal.
    static func ask(_ question: String) throws -> String {
        FileHandle.standardError.write(Data(question.utf8))
        guard let line = readLine(strippingNewline: true) else {
            throw CommandError(words("cli.no_input", ["question": question.trimmingCharacters(in: .whitespaces)]))
        }
        return line
    }

    /// Asks for a secret without echoing it when standard input is a terminal.
    static func askSecret(_ question: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else { return try ask(question) }
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return try ask(question)
    }
}
