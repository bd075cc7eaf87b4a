/// Rules of the server's own design (a password is never hashed while a transaction holds the SQLite writer; a node
/// offers only its step's actions) that a mistake in the code, never a request, could break.
///
/// Checked in debug builds, and in the optimized build the test run makes (`-Xswiftc -DGATEHOUSE_CHECKS`, see
/// `scripts/test`): the end-to-end suite runs the optimized binary, and a broken rule stops it there. An operator's
/// optimized build leaves the checks out, as `assert` does.
package enum Invariant {
    /// Stops the process with `message` when `condition` is false, in builds that check invariants.
    @inlinable
    package static func check(
        _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        #if DEBUG || GATEHOUSE_CHECKS
        precondition(condition(), message(), file: file, line: line)
        #endif
    }
}
