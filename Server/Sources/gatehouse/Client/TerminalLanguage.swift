import Foundation
import Gatehouse
import GatehouseFoundation

/// The language the terminal speaks: the person's locale settings as gettext reads them (`LANGUAGE`, then `LC_ALL`,
/// `LC_MESSAGES`, `LANG`), for the tool's own words and, sent as `Accept-Language`, for the server's.
enum TerminalLanguage {
    /// The languages of this process's environment, most preferred first, as BCP 47 tags; none under the C locale.
    static let preferred = tags(in: ProcessInfo.processInfo.environment)

    /// The tool's words in the first of ``preferred`` that Gatehouse ships, else English.
    static let wording = MessageCatalog.standard.wording(LanguageChoice(requested: preferred).language(default: .base))

    /// The BCP 47 tag of the language the tool speaks, which it asks the server and the SDK for too.
    static var tag: String { wording.language.tag }

    /// The languages `environment` names. `LANGUAGE` (a colon-separated list) counts only beside a locale other than
    /// C or POSIX, as in gettext: a C locale is a request for plain English output.
    static func tags(in environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, let primary = tag(of: locale) else { return [] }
        var tags: [String] = []
        for tag in (environment["LANGUAGE"] ?? "").split(separator: ":").compactMap({ tag(of: String($0)) }) + [primary] where !tags.contains(tag) {
            tags.append(tag)
        }
        return tags
    }

    /// The BCP 47 tag of a POSIX locale name (`pt_BR.UTF-8@euro` is `pt-BR`); `nil` for C and POSIX.
    static func tag(of locale: String) -> String? {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        guard !name.isEmpty, name != "C", name != "POSIX" else { return nil }
        return name.replacingOccurrences(of: "_", with: "-")
    }

    /// `error` as the person should read it: the SDK's errors in the terminal's language, any other as it is.
    static func worded(_ error: any Error) -> any Error {
        let languages = [tag]
        switch error {
        case let error as GatehouseError: return CommandError(error.localizedDescription(in: languages))
        case let error as BrowserRedirectError: return CommandError(error.localizedDescription(in: languages))
        case let error as DeviceAuthenticatorError: return CommandError(error.localizedDescription(in: languages))
        default: return error
        }
    }
}
