#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit, which bounds how many connections the server can hold.
public enum OpenFileLimit {
    /// Descriptors kept back from connections: the database and its journal, logs, the courier's and
    /// PostgreSQL's outgoing connections.
    static let reserve = 128

    /// Raises the soft limit to the hard one, as far as the system allows (many systems start processes at a
    /// soft 1,024 with a far higher hard limit), and returns the soft limit in force afterwards.
    @discardableResult
    public static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resourceNumber, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    #if canImport(Glibc)
    private static let resourceNumber = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNumber = RLIMIT_NOFILE
    #endif
}
