import Crypto
import CryptoExtras
import Foundation
import Gatehouse
import GatehouseProtocol
import NIOConcurrencyHelpers
import SQLKit
import Testing

@testable import GatehouseServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The PIN credential's promise: neither what the device stores nor what crosses the wire lets anyone check a
/// PIN guess without the server (which counts every guess).
@Suite("PIN credential")
struct PINOfflineGuessingTests {
    /// Whether `data` holds `value` as a token of its own: not inside a longer run of letters, digits or base64 signs
    /// (padding aside: `=` also separates a form value from its name).
    static func holds(_ value: Data, standingAlone data: Data) -> Bool {
        let word = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-".utf8)
        var start = data.startIndex
        while let found = data.range(of: value, in: start..<data.endIndex) {
            let before = found.lowerBound > data.startIndex ? data[data.index(before: found.lowerBound)] : nil
            let after = found.upperBound < data.endIndex ? data[found.upperBound] : nil
            if !(before.map(word.contains) ?? false) && !(after.map(word.contains) ?? false) { return true }
            start = data.index(after: found.lowerBound)
        }
        return false
    }

    /// Passes requests to the real network and keeps every request and response body, as an eavesdropper would.
    final class RecordingTransport: HTTPTransport {
        private let inner = URLSessionTransport()
        let bodies = NIOLockedValueBox<[Data]>([])

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let answer = try await inner.send(request)
            bodies.withLockedValue { $0 += [request.httpBody ?? Data(), answer.0] }
            return answer
        }
    }

    static func bytes(_ hex: String) -> Data {
        Data([UInt8](hex: hex))
    }

    @Test("the server's PRF is RFC 9497 VOPRF(P-384, SHA-384): the published test vectors (appendix A.4.2)")
    func rfcVectors() throws {
        let key = try P384._VOPRF.PrivateKey(
            rawRepresentation: Self.bytes("051646b9e6e7a71ae27c1e1d0b87b4381db6d3595eeeb1adb41579adbf992f4278f9016eafc944edaa2b43183581779d"))
        #expect(
            key.publicKey.compressedRepresentation
                == Self.bytes("031d689686c611991b55f1a1d8f4305ccd6cb719446f660a30db61b7aa87b46acf59b7c0d4a9077b3da21c25dd482229a0"))
        #expect(
            try key.evaluate(Self.bytes("00")) == Self.bytes("3333230886b562ffb8329a8be08fea8025755372817ec969d114d1203d026b4a622beab60220bf19078bca35a529b35c")
        )
        #expect(
            try key.evaluate(Self.bytes("5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"))
                == Self.bytes("b91c70ea3d4d62ba922eb8a7d03809a441e1c3c7af915cbc2226f485213e895942cd0f8580e6d99f82221e66c40d274f"))
        // The blinded protocol gives the same output as the direct evaluation, through a serialized round trip.
        let blinded = try key.publicKey.blind(Data("pin".utf8))
        let element = try P384._VOPRF.BlindedElement(oprfRepresentation: blinded.blindedElement.oprfRepresentation)
        let evaluation = try P384._VOPRF.BlindEvaluation(rawRepresentation: try key.evaluate(element).rawRepresentation)
        #expect(try key.publicKey.finalize(blinded, using: evaluation) == (try key.evaluate(Data("pin".utf8))))
    }

    @Test("a captured device store plus the transcripts of successful sign-ins do not let anyone check PIN guesses offline")
    func noOfflineGuessing() async throws {
        try await TestServer.withLiveServer(configure: DeviceAuthenticatorTests.configure) { server, issuer in
            let client = try await SDKLiveFlowTests.prepare(server, issuer: issuer)
            let wire = RecordingTransport()
            let storage = MemoryTokenStorage()
            let authenticator = DeviceAuthenticator(app: DeviceAuthenticatorTests.app, storage: storage, transport: wire)
            let record = try await DeviceAuthenticatorTests.register(authenticator, server: server, issuer: issuer)
            for _ in 0..<2 {
                let request = try await authenticator.begin(try await DeviceAuthenticatorTests.qrPayload(client).0)
                try await authenticator.approve(request, pin: DeviceAuthenticatorTests.pin)
            }
            // What an attacker holds: the device's whole store, and every byte both ways of registration and two sign-ins.
            let store = try #require(try await storage.read(account: DeviceAuthenticator.storageAccount))
            let transcript = wire.bodies.withLockedValue { $0 }
            let stored = try #require(try JSONSerialization.jsonObject(with: Data(store)) as? [[String: Any]]).first
            let sealedText = try #require(stored?["sealed_signing_key"] as? String)
            let sealedKey = try #require(Data(base64Encoded: sealedText))
            let publicText = try #require(stored?["oprf_public_key"] as? String)
            let serverPublicKey = try P384._VOPRF.PublicKey(x963Representation: try #require(Data(base64Encoded: publicText)))

            // 1. The only PIN-dependent value on the wire is the blinded element, re-randomized every time (the blind is
            //    a fresh scalar, never stored): three uses of the same PIN sent three unrelated points, so no function of a
            //    guess can be compared with them. The PIN itself appears nowhere.
            let blindedElements = transcript.compactMap { body in
                (try? JSONDecoder().decode(PINEvaluationRequest.self, from: body))?.blindedElement
            }
            #expect(blindedElements.count == 3 && Set(blindedElements).count == 3)
            // Standing alone, that is: four digits also turn up by chance inside base64 text and timestamps.
            let pinBytes = Data(DeviceAuthenticatorTests.pin.utf8)
            #expect(!transcript.contains { Self.holds(pinBytes, standingAlone: $0) } && !Self.holds(pinBytes, standingAlone: Data(store)))
            // The check finds a PIN sent as a value, and only that.
            let pin = DeviceAuthenticatorTests.pin
            #expect(Self.holds(pinBytes, standingAlone: Data(#"{"pin":"\#(pin)"}"#.utf8)) && Self.holds(pinBytes, standingAlone: Data("pin=\(pin)&".utf8)))
            #expect(!Self.holds(pinBytes, standingAlone: Data(#"{"iat":1\#(pin)0,"k":"QX\#(pin)b"}"#.utf8)))

            // 2. The stored signing key opens only under HKDF(PRF(k, PIN)); an attacker checks a guess by trying to open it
            //    (AES-GCM would reject a wrong key). Computing PRF(k, guess) needs the server's key k: with it (the
            //    positive control, what the server does once per counted attempt) exactly the right PIN opens the store
            //    among a thousand candidates, so this check is a working oracle. Without it, an attacker can only pick
            //    some other key; under one, nothing opens, and k appears nowhere in what was captured.
            let sealedOPRFKey = try #require(try await server.deviceIdentities.find(id: record.id)).sealedOPRFKey
            let serverKey = try server.pinKeys.key(sealedOPRFKey)
            let attackerKey = P384._VOPRF.PrivateKey()
            #expect(attackerKey.publicKey.x963Representation != serverPublicKey.x963Representation)
            func opens(_ prfOutput: Data) -> Bool {
                // The SDK's derivation, written again here from the protocol description.
                let key = HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: SymmetricKey(data: prfOutput), salt: Data(record.id.utf8),
                    info: Data("gatehouse-pin-v1|signing key seal".utf8), outputByteCount: 32)
                guard let box = try? AES.GCM.SealedBox(combined: sealedKey) else { return false }
                return (try? AES.GCM.open(box, using: key, authenticating: Data(record.id.utf8))) != nil
            }
            var openedWithServerKey: [String] = []
            var openedWithoutIt = 0
            for candidate in 4000..<5000 {
                let input = PINProtocol.oprfInput(pin: String(candidate), identityID: record.id)
                if opens(try serverKey.evaluate(input)) { openedWithServerKey.append(String(candidate)) }
                if opens(try attackerKey.evaluate(input)) || opens(Data(SHA384.hash(data: input))) { openedWithoutIt += 1 }
            }
            #expect(openedWithServerKey == [DeviceAuthenticatorTests.pin])
            #expect(openedWithoutIt == 0)
            let secretKeyBytes = serverKey.rawRepresentation
            #expect(!transcript.contains { $0.range(of: secretKeyBytes) != nil || $0.range(of: Data(Base64URL.encode(secretKeyBytes).utf8)) != nil })
            #expect(Data(store).range(of: Data(secretKeyBytes.base64EncodedString().utf8)) == nil)

            // 3. The server counted every evaluation: two right PINs left the count at zero, and a guess made through the
            //    server is a counted attempt like any other.
            #expect(try await DeviceAuthenticatorTests.pinEvaluations(server, record.id) == (0, 2))
        }
    }
}
