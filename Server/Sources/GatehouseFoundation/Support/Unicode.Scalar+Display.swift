extension Unicode.Scalar {
    /// Whether a screen or terminal would act on the scalar rather than show it: C0 and C1 controls, DEL, line and
    /// paragraph separators, and the bidirectional embeddings, overrides and isolates (which can make a name read as
    /// another, `‮lapyap` shown as `paypal`).
    package var changesDisplay: Bool {
        properties.generalCategory == .control || (0x2028...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x200E || value == 0x200F || value == 0x061C
    }
}
