// swift-tools-version:6.0
// The SDK package: what an app adds by URL. It never pulls in server dependencies.
import PackageDescription

let package = Package(
    name: "Gatehouse",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Gatehouse", targets: ["Gatehouse"]),
        .library(name: "GatehouseProtocol", targets: ["GatehouseProtocol"]),
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
