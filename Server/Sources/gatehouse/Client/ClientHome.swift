import ArgumentParser
import Foundation
import Gatehouse
import Logging

/// Where the terminal client keeps its session: the provider and client it signed in to
/// (`session.json`) and the tokens, in the SDK's encrypted file store (`tokens/`). Owner-only.
struct ClientHome: ParsableArguments {
    @Option(
        name: .customLong("home"),
        help: ArgumentHelp(
            "Folder for the terminal session (default: $GATEHOUSE_HOME, else $XDG_CONFIG_HOME/gatehouse or ~/.config/gatehouse).",
            valueName: "folder"))
    var path: String?

    var folder: URL {
        if let path { return URL(fileURLWithPath: path) }
        let environment = ProcessInfo.processInfo.environment
        if let home = environment["GATEHOUSE_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            return URL(fileURLWithPath: config).appendingPathComponent("gatehouse")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/gatehouse")
    }

    var tokenStorage: EncryptedFileTokenStorage { EncryptedFileTokenStorage(directory: folder.appendingPathComponent("tokens")) }
    private var profileFile: URL { folder.appendingPathComponent("session.json") }

    /// What `gatehouse login` signed in to; the other commands reuse it.
    struct Profile: Codable {
        var issuer: String
        var clientID: String
        var redirectURI: String
        var scopes: [String]

        enum CodingKeys: String, CodingKey {
            case issuer, scopes
            case clientID = "client_id"
            case redirectURI = "redirect_uri"
        }
    }

    func save(_ profile: Profile) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONEncoder().encode(profile)
        guard FileManager.default.createFile(atPath: profileFile.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CommandError("Cannot write \(profileFile.path); check the folder's permissions or choose another with --home.")
        }
    }

    func loadProfile() throws -> Profile? {
        guard let data = FileManager.default.contents(atPath: profileFile.path) else { return nil }
        do {
            return try JSONDecoder().decode(Profile.self, from: data)
        } catch {
            throw CommandError("\(profileFile.path) is damaged; run `gatehouse logout` and sign in again.")
        }
    }

    func removeProfile() throws {
        if FileManager.default.fileExists(atPath: profileFile.path) { try FileManager.default.removeItem(at: profileFile) }
    }

    func configuration(for profile: Profile, timeout: TimeInterval = 30) throws -> GatehouseConfiguration {
        guard let issuer = URL(string: profile.issuer), issuer.scheme != nil, issuer.host != nil else {
            throw CommandError("The issuer \(profile.issuer) is not an absolute URL, e.g. http://127.0.0.1:8080.")
        }
        // Only problems reach the terminal; what the user needs to know, the commands print themselves.
        var logger = Logger(label: "gatehouse")
        logger.logLevel = .warning
        return GatehouseConfiguration(
            issuer: issuer, clientID: profile.clientID, redirectURI: profile.redirectURI, scopes: profile.scopes,
            timeout: timeout, tokenStorage: tokenStorage, logger: logger, preferredLanguages: [TerminalLanguage.tag])
    }

    /// The session `gatehouse login` left, if there is one.
    func currentUser() async throws -> (UserSession, Profile)? {
        guard let profile = try loadProfile(),
            let user = try await GatehouseClient(configuration: try configuration(for: profile)).currentUser()
        else { return nil }
        return (user, profile)
    }

    /// Signs out every account of the saved profile, unless it names the same server and client as `profile`.
    func signOutAll(unless profile: Profile) async throws {
        guard let saved = try loadProfile(), saved.issuer != profile.issuer || saved.clientID != profile.clientID else { return }
        let client = GatehouseClient(configuration: try configuration(for: saved))
        for account in try await client.accounts() { try? await client.removeAccount(account) }
    }

    /// The session `gatehouse login` left, or a readable error telling the user to sign in.
    func signedInUser() async throws -> (UserSession, Profile) {
        guard let signedIn = try await currentUser() else { throw CommandError(Terminal.words("cli.sign_in_first")) }
        return signedIn
    }
}
