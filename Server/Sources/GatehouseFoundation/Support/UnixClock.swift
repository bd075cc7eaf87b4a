import Foundation
import NIOConcurrencyHelpers

/// Where Gatehouse reads the time, in whole Unix seconds. Injectable so tests can expire codes and tokens
/// without sleeping.
public struct UnixClock: Sendable {
    private let read: @Sendable () -> Int64

    public init(_ read: @escaping @Sendable () -> Int64) {
        self.read = read
    }

    /// The current time in Unix seconds.
    public func now() -> Int64 { read() }

    /// The system clock.
    public static let system = UnixClock { Int64(Date().timeIntervalSince1970) }

    /// A clock that starts at the system time and only moves when told to, for tests.
    public static func manual() -> (clock: UnixClock, advance: @Sendable (Int64) -> Void) {
        // Frozen at the start: a test's boundaries must not move because the machine was slow.
        let start = Int64(Date().timeIntervalSince1970)
        let offset = NIOLockedValueBox<Int64>(0)
        let clock = UnixClock { start + offset.withLockedValue { $0 } }
        return (clock, { seconds in offset.withLockedValue { $0 += seconds } })
    }

    /// A clock that runs with the system's, ahead of it by what a test adds: for tests whose other party (an app, a
    /// resource server) reads the real time, and whose server must yet move on at once.
    public static func ahead() -> (clock: UnixClock, advance: @Sendable (Int64) -> Void) {
        let offset = NIOLockedValueBox<Int64>(0)
        let clock = UnixClock { Int64(Date().timeIntervalSince1970) + offset.withLockedValue { $0 } }
        return (clock, { seconds in offset.withLockedValue { $0 += seconds } })
    }
}
