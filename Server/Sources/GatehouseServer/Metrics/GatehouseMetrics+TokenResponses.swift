import GatehouseDomain
import Hummingbird

extension GatehouseMetrics {
    /// Counts the tokens a successful token response of `grant` issued, and returns the response.
    static func issued(_ grant: String, _ response: Response) -> Response {
        if response.status == .ok { countIssued(grant) }
        return response
    }
}
