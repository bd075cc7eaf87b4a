// swift-tools-version:6.0
// The SDK package: what an app adds by URL, and what an API adds to check Gatehouse's tokens. It never pulls in the
// identity server's dependencies.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Gatehouse", targets: ["Gatehouse"]),
        .library(name: "GatehouseProtocol", targets: ["GatehouseProtocol"]),
        // For APIs: checking Gatehouse access tokens, and the same in a Hummingbird middleware.
        .library(name: "GatehouseResourceServer", targets: ["GatehouseResourceServer"]),
        .library(name: "GatehouseResourceServerHummingbird", targets: ["GatehouseResourceServerHummingbird"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Only the Hummingbird middleware uses it; an app that adds the SDK never fetches it.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "GatehouseProtocol",
            dependencies: [.product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto")]
        ),
        .target(
            name: "Gatehouse",
            dependencies: [
                "GatehouseProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The SDK's words for people in six languages, read at run time as the JSON it is (``StringCatalog``).
            resources: [.copy("Resources/Localizable.xcstrings")]
        ),
        // Checks access tokens for an API; no web framework, no server dependencies.
        .target(
            name: "GatehouseResourceServer",
            dependencies: ["Gatehouse", "GatehouseProtocol", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "GatehouseResourceServerHummingbird",
            dependencies: [
                "GatehouseResourceServer", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "GatehouseTests",
            dependencies: [
                "Gatehouse",
                "GatehouseProtocol",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
    ]
)
