import Foundation
import GatehouseFoundation

/// What Gatehouse reads from a Firebase service account's JSON key.
package struct FCMServiceAccount: Sendable {
    package var projectID: String
    package var clientEmail: String
    package var tokenURI: String
    package var signer: ClientAssertionSigner

    package init(file: String) throws {
        let key = "push.fcm.service_account_file"
        guard let data = FileManager.default.contents(atPath: file),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ConfigurationError(key: key, "must be a readable service account JSON key, not \(file).") }
        guard let project = object["project_id"] as? String, let email = object["client_email"] as? String,
            let pem = object["private_key"] as? String
        else { throw ConfigurationError(key: key, "lacks project_id, client_email or private_key: \(file).") }
        projectID = project
        clientEmail = email
        tokenURI = object["token_uri"] as? String ?? "https://oauth2.googleapis.com/token"
        try PushSettings.checkURL(tokenURI, key: key + " token_uri")
        signer = try ClientAssertionSigner(pem: pem, keyID: object["private_key_id"] as? String, source: "The service account key in \(file)")
    }
}
