import GatehouseProtocol

/// Where pushes for a device identity go: the platform and the token the app registered.
public struct PushTarget: Sendable, Equatable {
    public var platform: PushPlatform
    public var token: String

    public init(platform: PushPlatform, token: String) {
        self.platform = platform
        self.token = token
    }
}
