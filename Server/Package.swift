// swift-tools-version:6.1
// The server package: the identity server library, the `gatehouse` tool, and their tests.
// It depends on the SDK package by path so wire types are defined once.
import PackageDescription

let package = Package(
    name: "GatehouseServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GatehouseServer", targets: ["GatehouseServer"]),
        .library(name: "QRCode", targets: ["QRCode"]),
        .executable(name: "gatehouse", targets: ["gatehouse"]),
    ],
    dependencies: [
        .package(name: "Gatehouse", path: ".."),
        // The SDK's Hummingbird middleware for APIs, a package of its own so that apps never resolve Hummingbird.
        .package(name: "GatehouseHummingbird", path: "../Integrations/GatehouseHummingbird"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Templates for the hosted pages: values HTML-escaped by default.
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // OTLP over HTTP only: the gRPC exporter would add gRPC to every build.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // A QR code encoder with no dependencies: the hosted pages draw SVG, the terminal draws text.
        .target(name: "QRCode"),
        // A CBOR reader with hard limits (and a small writer), for WebAuthn's attestation objects and COSE keys.
        .target(name: "CBOR"),
        // OpenSSL's libcrypto (Debian: libssl-dev), on Linux only, for RSA signatures: it signs RSA-2048 about twice as
        // fast as swift-crypto's BoringSSL on x86-64. Everything else, RSA verification included, stays on swift-crypto.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The ground floor: the database engines and their transactions, the schema, cryptographic primitives,
        // templates and resources. It names nothing above it; what it observes goes to swift-metrics and
        // swift-distributed-tracing directly.
        .target(
            name: "GatehouseFoundation",
            dependencies: [
                .target(name: "CLibCrypto", condition: .when(platforms: [.linux])),
                .product(name: "GatehouseProtocol", package: "Gatehouse"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        // What an identity server keeps, checks and sends, without HTTP routes or the server object: records and their
        // stores (users, clients, tokens, codes, passkeys, the audit trail), policies, verifiers (WebAuthn, one-time
        // passwords, DPoP proofs), attempt limits, the courier's queue and deliveries, other identity providers.
        .target(
            name: "GatehouseDomain",
            dependencies: [
                "GatehouseFoundation",
                "CBOR",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "GatehouseProtocol", package: "Gatehouse"),
                // The SDK's ID token validator, for ID tokens from other identity providers.
                .product(name: "Gatehouse", package: "Gatehouse"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]
        ),
        // What runs on the domain, without HTTP: the sign-in flows' engine, housekeeping's sweep of expired rows, and the
        // signing keys' ring.
        .target(
            name: "GatehouseEngines",
            dependencies: [
                "GatehouseDomain",
                "GatehouseFoundation",
                .product(name: "GatehouseProtocol", package: "Gatehouse"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "GatehouseServer",
            dependencies: [
                "GatehouseDomain",
                "GatehouseEngines",
                "GatehouseFoundation",
                "QRCode",
                "CBOR",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "GatehouseProtocol", package: "Gatehouse"),
                // The SDK's ID token validator, for ID tokens from other identity providers.
                .product(name: "Gatehouse", package: "Gatehouse"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            resources: [
                .copy("Resources/common-passwords.txt"), .copy("Resources/openapi.json"), .copy("Resources/admin-openapi.json"),
                .copy("Resources/account-openapi.json"), .copy("Resources/assets"),
                .copy("Resources/templates"), .copy("Resources/messages"),
            ]
        ),
        .executableTarget(
            name: "gatehouse",
            dependencies: [
                "GatehouseDomain",
                "GatehouseEngines",
                "GatehouseFoundation",
                "GatehouseServer",
                "QRCode",
                .product(name: "Gatehouse", package: "Gatehouse"),
                .product(name: "GatehouseProtocol", package: "Gatehouse"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode"]),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(
            name: "GatehouseServerTests",
            dependencies: [
                "GatehouseDomain",
                "GatehouseEngines",
                "GatehouseFoundation",
                "GatehouseServer",
                "CBOR",
                .product(name: "Gatehouse", package: "Gatehouse"),
                .product(name: "GatehouseProtocol", package: "Gatehouse"),
                .product(name: "GatehouseResourceServer", package: "Gatehouse"),
                .product(name: "GatehouseResourceServerHummingbird", package: "GatehouseHummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
            ]
        ),
    ]
)
