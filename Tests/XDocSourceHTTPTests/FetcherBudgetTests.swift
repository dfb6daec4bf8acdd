import Foundation
import Testing
import XDSTestSupport
import XDocSourceFetch
import XDocSourceHTTP

/// One time budget for a whole fetch (SPEC §3): the list, its redirects and the icon share it,
/// each request getting what is left. Budgets of a few seconds here (FetchPolicy.timeBudget;
/// `xds` keeps the 30 s); the transport's own time-outs are longer, so only the budget can stop
/// these fetches.
@Suite("Fetcher time budget", .serialized)
final class FetcherBudgetTests: @unchecked Sendable {
    let server: TestHTTPServer
    let transport: CurlTransport

    init() async throws {
        server = try await TestHTTPServer.start(sharing: "FetcherBudgetTests")
        transport = CurlTransport(configuration: HTTPTransportConfiguration(
            connectTimeout: .seconds(10), totalTimeout: .seconds(30), allowHTTP: true, proxy: ""))
    }

    deinit { server.stop() }

    func fetcher(budget: Duration) -> AppInfoFetcher {
        AppInfoFetcher(transport: transport, policy: FetchPolicy(allowHTTP: true, timeBudget: budget), cache: nil)
    }

    func failure(_ body: () async throws(FetchError) -> Void) async -> FetchError? {
        do throws(FetchError) {
            try await body()
            Issue.record("expected a FetchError")
            return nil
        } catch {
            return error
        }
    }

    @Test("a slow list (1 s) and a slow icon (2 s), each within a 2.5 s budget alone, together run out of it at the icon")
    func listPlusIcon() async throws {
        try server.setRoutes(["routes": [
            "/slow/appInfo.json": ["delay": 1.0, "body": #"{"icons": [{"width": 58, "height": 58, "src": "/slow/icon.png"}]}"#],
            "/slow/icon.png": ["delay": 2.0, "body": "png"],
        ]])
        let error = await failure { () async throws(FetchError) in
            _ = try await fetcher(budget: .milliseconds(2500)).iconImage(pixelSize: 58, from: .commandLine(server.url("/slow/appInfo.json")))
        }
        // Each request alone fits in the budget, so only the shared budget can stop this fetch:
        // normally while the icon is asked for; on a loaded machine perhaps before (the
        // budget counts wall time), which is still the budget running out.
        #expect(error?.kind == .timedOut, "\(String(describing: error))")
        #expect(error?.message.contains("the 2.5 s for the whole fetch") == true, "\(String(describing: error))")
        if error?.url == server.url("/slow/icon.png") && !(error?.message.hasPrefix("not asked") ?? true) {
            #expect(error?.message == "no complete answer from 127.0.0.1 before the 2.5 s for the whole fetch ran out")
        }
        // The same fetch with a budget for both succeeds: the limit is the sum, not each request.
        let icon = try await fetcher(budget: .seconds(600)).iconImage(pixelSize: 58, from: .commandLine(server.url("/slow/appInfo.json")))
        #expect(icon.bytes == Array("png".utf8))
    }

    @Test("slow redirect hops share the budget: the fetch stops at the hop where it runs out")
    func slowRedirects() async throws {
        var routes: [String: Any] = [:]
        for hop in 1...6 {
            routes["/hop/\(hop)"] = ["delay": 0.6, "status": 302, "headers": ["Location": "/hop/\(hop + 1)"]]
        }
        routes["/hop/7"] = ["body": #"{"icons": []}"#]
        try server.setRoutes(["routes": routes])
        let error = await failure { () async throws(FetchError) in
            _ = try await fetcher(budget: .seconds(2)).appInfo(at: .commandLine(server.url("/hop/1")))
        }
        #expect(error?.kind == .timedOut, "\(String(describing: error))")
        #expect(error?.message.contains("the 2 s for the whole fetch") == true, "\(String(describing: error))")
        // 0.6 s a hop: the budget runs out at the third or fourth hop (earlier on a loaded
        // machine), never at the last.
        let hop = error?.url.replacingOccurrences(of: server.url("/hop/"), with: "")
        #expect(["1", "2", "3", "4", "5"].contains(hop), "\(String(describing: error))")
        #expect(await !server.requestsStarted(to: "/hop/6", timeout: 0.5))
    }

    @Test("a budget already spent: no request is made")
    func spentBudget() async throws {
        try server.write("list.json", #"{"icons": []}"#)
        let error = await failure { () async throws(FetchError) in
            _ = try await fetcher(budget: .zero).appInfo(at: .commandLine(server.url("/list.json")))
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.message == "not asked: the 0 s for the whole fetch (list, redirects and icon) ran out")
        #expect(try server.requests().isEmpty)
    }

    @Test("the default budget is SPEC §3's 30 s")
    func defaultBudget() {
        #expect(FetchPolicy().timeBudget == .seconds(30))
    }
}
