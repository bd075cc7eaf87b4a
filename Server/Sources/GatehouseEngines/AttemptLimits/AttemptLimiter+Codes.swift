import GatehouseDomain

extension AttemptLimiter {
    /// The counter of wrong codes for `purpose` on `subject` (`user:ID`, `name:…`, `email:…`): one per purpose, so
    /// guessing reset codes does not use up an account's second-factor guesses.
    package func codeCounter(_ purpose: OneTimeCodeStore.Purpose, subject: String, limit: AttemptLimit) -> Counter {
        counter("code:" + purpose.rawValue, subject: subject, limit: limit)
    }
}
