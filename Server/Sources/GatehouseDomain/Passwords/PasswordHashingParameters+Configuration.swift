import GatehouseFoundation

/// The `password_hashing` section of the configuration file: `log_n`, `block_size` and `parallelism`.
extension PasswordHashingParameters: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.section(CodingKeys.self)
        self.init(
            logN: try container.decode(Int.self, forKey: .logN), blockSize: try container.decode(Int.self, forKey: .blockSize),
            parallelism: try container.decode(Int.self, forKey: .parallelism))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(logN, forKey: .logN)
        try container.encode(blockSize, forKey: .blockSize)
        try container.encode(parallelism, forKey: .parallelism)
    }

    package enum CodingKeys: String, CodingKey, CaseIterable {
        case logN = "log_n"
        case blockSize = "block_size"
        case parallelism
    }
}
