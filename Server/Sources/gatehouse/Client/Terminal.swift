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

    /// Says where to go on with `url` (printed, so the person may open it anywhere on this machine) and, when `open`,
    /// opens it in the desktop's browser.
    static func showInBrowser(_ url: URL, _ prompt: String, open: Bool) {
        say("\(prompt) in your browser at\n\(url.absoluteString)\nWaiting for it to come back…")
        if open { LoopbackUserAgent.openInSystemBrowser(url) }
    }

    /// Asks for a line; the end of input is an error that says how to run without a terminal.
    static func ask(_ question: String) throws -> String {
        FileHandle.standardError.write(Data(question.utf8))
        guard let line = readLine(strippingNewline: true) else {
            throw CommandError("No input for \"\(question.trimmingCharacters(in: .whitespaces))\"; run in a terminal, or pass --username and --password-stdin.")
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
