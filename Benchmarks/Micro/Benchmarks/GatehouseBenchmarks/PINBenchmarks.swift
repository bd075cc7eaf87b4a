import Benchmark
import Crypto
import CryptoExtras
import Foundation

/// The PIN credential (RFC 9497 VOPRF(P-384, SHA-384)): what the server does for each counted PIN attempt (one
/// evaluation with its DLEQ proof), and the whole round trip (the device's blind and proof-checking finalize around it).
enum PINBenchmarks {
    static func register() {
        let key = P384._VOPRF.PrivateKey()
        // The input's shape as PINProtocol.oprfInput builds it.
        let input = Data("gatehouse-pin-v1|pin|benchmark-identity|4711".utf8)
        let blinded = try! key.publicKey.blind(input)
        let element = try! P384._VOPRF.BlindedElement(oprfRepresentation: blinded.blindedElement.oprfRepresentation)
        Benchmark("PIN evaluation, server side (VOPRF P-384 evaluate + proof)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try key.evaluate(element))
            }
        }
        Benchmark("PIN round trip (device blind + server evaluate + device finalize)") { benchmark in
            for _ in benchmark.scaledIterations {
                let fresh = try key.publicKey.blind(input)
                blackHole(try key.publicKey.finalize(fresh, using: try key.evaluate(fresh.blindedElement)))
            }
        }
    }
}
