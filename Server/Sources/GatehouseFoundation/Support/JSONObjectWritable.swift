/// A document sent on a hot path, written by ``JSONObjectWriter`` instead of `JSONEncoder`.
///
/// It stays `Encodable`; tests check that both encodings carry the same members and values.
package protocol JSONObjectWritable: Encodable {
    func write(to writer: inout JSONObjectWriter)
}

extension JSONObjectWritable {
    /// The document as JSON bytes.
    package var jsonBytes: [UInt8] {
        var writer = JSONObjectWriter()
        write(to: &writer)
        return writer.finish()
    }
}
