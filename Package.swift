// swift-tools-version:6.0
// The SDK package: what an app adds by URL, and what an API adds to check Gatehouse's tokens. It never pulls in the
// identity server's dependencies, nor a web framework: the Hummingbird middleware is the package in
// Integrations/GatehouseHummingbird.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Gatehouse", targets: ["Gatehouse"]),
        .library(name: "GatehouseProtocol", targets: ["GatehouseProtocol"]),
        // For APIs: checking Gatehouse access tokens (the Hummingbird middleware is in Integrations/GatehouseHummingbird).
        .library(name: "GatehouseResourceServer", targets: ["GatehouseResourceServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
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
