import Foundation
import Testing
@testable import ALSA

@Suite(.tags(.integration)) struct CatalogTests {
    init() { ALSATestEnvironment.prepare() }

    @Test func hintsListNullAndPrivateConfigPCMs() throws {
        let hints = try ALSAConfigurationCatalog.pcmHints()
        let null = try #require(hints.first { $0.name == "null" })
        #expect(null.description?.contains("Discard all samples") == true)
        let hinted = try #require(hints.first { $0.name == ALSATestEnvironment.hintedPCM })
        #expect(hinted.description == ALSATestEnvironment.hintedDescription)
        #expect(Set(hints.map(\.name)).count == hints.count)
    }

    @Test func cardsMatchTheKernelsList() throws {
        let cards = try ALSAConfigurationCatalog.cards()
        // /proc/asound/cards has one " N [id ]: driver - name" line per card; no file, no cards.
        let listing = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        let kernelIndices = listing.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 1, fields[1].hasPrefix("[") else { return nil }
            return Int(fields[0])
        }
        #expect(cards.map(\.index) == kernelIndices)
        #expect(cards.allSatisfy { !$0.name.isEmpty && !$0.longName.isEmpty })
    }
}
