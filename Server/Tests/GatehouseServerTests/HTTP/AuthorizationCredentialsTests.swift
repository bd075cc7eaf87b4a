import HTTPTypes
import Testing

@testable import GatehouseServer

@Suite("Authorization header credentials")
struct AuthorizationCredentialsTests {
    @Test("the scheme matches without regard to case, and blanks around the credentials are dropped (RFC 9110 §11.4)")
    func readsCredentials() {
        #expect(AuthorizationCredentials.of("Bearer", in: "Bearer abc.def") == "abc.def")
        #expect(AuthorizationCredentials.of("Bearer", in: "bearer abc") == "abc")
        #expect(AuthorizationCredentials.of("Bearer", in: "BEARER   abc \t") == "abc")
        #expect(AuthorizationCredentials.of("Bearer", in: " Bearer\tabc") == "abc")
        #expect(AuthorizationCredentials.of("Basic", in: "Basic YTpi") == "YTpi")
        #expect(AuthorizationCredentials.of("Bearer", in: "Bearer tökén") == "tökén")
    }

    @Test("another scheme, a longer scheme name or a missing header is nil; the scheme alone is empty credentials")
    func refusesOtherSchemes() {
        #expect(AuthorizationCredentials.of("Bearer", in: "Basic YTpi") == nil)
        #expect(AuthorizationCredentials.of("Bearer", in: "Bearerabc") == nil)
        #expect(AuthorizationCredentials.of("Bearer", in: "Bear") == nil)
        #expect(AuthorizationCredentials.of("Bearer", in: "") == nil)
        #expect(AuthorizationCredentials.of("Bearer", in: "Bearer") == "")
        #expect(AuthorizationCredentials.of("Bearer", in: "Bearer   ") == "")
        #expect(AuthorizationCredentials.of("Bearer", in: HTTPFields()) == nil)
        #expect(AuthorizationCredentials.of("Bearer", in: [.authorization: "Bearer abc"] as HTTPFields) == "abc")
    }
}
