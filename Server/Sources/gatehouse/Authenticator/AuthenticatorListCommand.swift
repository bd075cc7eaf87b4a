import ArgumentParser
import Foundation
import Gatehouse

/// `gatehouse authenticator list`: the identities on this device.
struct AuthenticatorListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the device identities kept here.")

    @OptionGroup var options: AuthenticatorOptions
    @Flag(help: "Ask each service where its identities stand (e.g. blocked) before listing.")
    var refresh = false
    @OptionGroup var output: OutputOptions

    struct Summary: Encodable {
        let id, service, serviceURL, email, state: String
        let username, deviceName: String?

        enum CodingKeys: String, CodingKey {
            case id, service, email, state, username
            case serviceURL = "service_url"
            case deviceName = "device_name"
        }
    }

    func run() async throws {
        do {
            let authenticator = options.authenticator
            if refresh {
                for record in try await authenticator.identities() { _ = try? await authenticator.refresh(record.id) }
            }
            let summaries = try await authenticator.identities().map {
                Summary(
                    id: $0.id, service: $0.serviceName, serviceURL: $0.serviceURL.absoluteString, email: $0.email, state: $0.state.rawValue,
                    username: $0.username, deviceName: $0.deviceName)
            }
            if output.json { return try JSONOutput.print(summaries) }
            guard !summaries.isEmpty else { return print("No identities; add one with `gatehouse authenticator register`.") }
            var table = TextTable(headers: ["ID", "SERVICE", "ACCOUNT", "STATE"])
            table.rows = summaries.map { [$0.id, $0.service, $0.username ?? $0.email, $0.state] }
            print(table.render())
        } catch let error as DeviceAuthenticatorError {
            throw error.commandError
        }
    }
}

/// `gatehouse authenticator delete`: removes an identity here and at its service.
struct AuthenticatorDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a device identity, here and at its service.")

    @OptionGroup var options: AuthenticatorOptions
    @Argument(help: "The identity id (see `list`).")
    var identity: String

    func run() async throws {
        do {
            try await options.authenticator.delete(identity)
            print("Deleted \(identity).")
        } catch {
            throw error.commandError
        }
    }
}
