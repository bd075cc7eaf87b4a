import Foundation
import Testing

@testable import GatehouseServer

@Suite("Form parameters")
struct FormParametersTests {
    @Test("decodes + as a space and %XX as bytes, multi-byte UTF-8 included, as Foundation does")
    func decodesLikeFoundation() {
        let samples = ["a+b", "caf%C3%A9", "100%25", "x%2By%3Dz%26", "%e2%9c%93+done", "plain", "", "dev.gatehouse.app%3A%2Fcallback"]
        for sample in samples {
            let parameters = FormParameters(encoded: "value=\(sample)")
            let foundation = sample.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            #expect(parameters.values["value"] == foundation, "\(sample)")
        }
        let parameters = FormParameters(encoded: "grant_type=refresh_token&scope=openid+email&empty=&name%20x=y")
        #expect(parameters["grant_type"] == "refresh_token")
        #expect(parameters["scope"] == "openid email")
        #expect(parameters["empty"] == nil)
        #expect(parameters["name x"] == "y")
        #expect(parameters.repeatedName == nil)
    }

    @Test("a broken escape or bytes that are not UTF-8 leave the name out or the value empty, never crash")
    func refusesBrokenEscapes() {
        let broken = FormParameters(encoded: "a=%&b=%4&c=%zz&d=%FF%FE&%ZZ=1&ok=1")
        for name in ["a", "b", "c", "d"] {
            #expect(broken[name] == nil, "\(name)")
        }
        #expect(broken.values.count == 5)
        #expect(broken["ok"] == "1")
    }

    @Test("a repeated name is reported, and every value is kept in order")
    func repeatedNames() {
        let parameters = FormParameters(encoded: "scope=a&x=1&scope=b")
        #expect(parameters.repeatedName == "scope")
        #expect(parameters.allValues["scope"] == ["a", "b"])
    }
}
