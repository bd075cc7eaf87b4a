// swift-tools-version:6.0
// The Hummingbird middleware for APIs that check Gatehouse's access tokens, in a package of its own: the SDK package
// an app adds stays free of any server framework, and only an API built on Hummingbird resolves Hummingbird and SwiftNIO.
import PackageDescription

let package = Package(
    name: "GatehouseHummingbird",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "GatehouseResourceServerHummingbird", targets: ["GatehouseResourceServerHummingbird"])
    ],
    dependencies: [
        .package(name: "Gatehouse", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(
            name: "GatehouseResourceServerHummingbird",
            dependencies: [
                .product(name: "GatehouseResourceServer", package: "Gatehouse"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        )
    ]
)
