import ArgumentParser

/// The username and password options of `login`, `register` and `enroll`.
struct CredentialOptions: ParsableArguments {
    @Option(help: "The username; asked for when absent.")
    var username: String?
    @Flag(name: .customLong("password-stdin"), help: "Read the password from the first line of standard input.")
    var passwordFromStandardInput = false
}
