import Foundation

/// Ultra HDR 1.0's gain-map XMP: the `hdrgm:` properties (namespace
/// `http://ns.adobe.com/hdr-gain-map/1.0/`) a gain-map image carries, and the `Container:`
/// directory the primary image carries.
///
/// The reader looks for the properties in both RDF forms writers use: attributes
/// (`hdrgm:GainMapMax="4.2"`) and elements, with a single value or an `rdf:Seq` of three
/// (red, green, blue). It binds the namespace to whatever prefix the packet declares. It is a
/// bounded text scan, not an XML parser: every search moves forward through the packet.
public enum GainMapXMP {
    /// The namespace of the `hdrgm:` properties.
    public static let namespace = "http://ns.adobe.com/hdr-gain-map/1.0/"
    /// The `APP1` segment name of a standard XMP packet, with its terminating zero.
    public static let identifier = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    /// What one packet says about gain maps.
    public struct Content: Sendable, Hashable {
        /// `hdrgm:Version` (Ultra HDR writes `1.0`), `nil` when absent.
        public var version: String?
        /// The gain-map values, `nil` when the packet has no `hdrgm:GainMapMax` (a primary
        /// image's packet names only the version).
        public var metadata: GainMapMetadata?
        /// The `Item:Length` of the directory's `GainMap` item, when present.
        public var gainMapLength: Int?
    }

    /// Reads `packet`. `nil` when it does not declare the `hdrgm` namespace at all.
    /// - Throws: ``GainMapIssue`` (``GainMapIssue/Kind/metadata``) when values are present but
    ///   unreadable: a number that does not parse, a sequence of other than 1 or 3 values, a
    ///   missing `HDRCapacityMax`, or values ``GainMapMetadata/validate()`` refuses.
    public static func parse(_ packet: Data) throws(GainMapIssue) -> Content? {
        let text = String(decoding: packet, as: UTF8.self)
        guard let prefix = prefix(bound: namespace, in: text) else { return nil }
        var content = Content()
        content.version = value(prefix + ":Version", in: text)?.first
        if let item = gainMapItemLength(in: text) { content.gainMapLength = item }
        guard let maxima = value(prefix + ":GainMapMax", in: text) else { return content }

        func numbers(_ name: String, default fallback: Double?) throws(GainMapIssue) -> [Double] {
            guard let strings = value(prefix + ":" + name, in: text) else {
                guard let fallback else { throw GainMapIssue(.metadata, "hdrgm:\(name) is missing") }
                return [fallback]
            }
            guard strings.count == 1 || strings.count == 3 else {
                throw GainMapIssue(.metadata, "hdrgm:\(name) has \(strings.count) values; 1 or 3 expected")
            }
            var result: [Double] = []
            for s in strings {
                guard let v = Double(s.trimmingCharacters(in: .whitespacesAndNewlines)), v.isFinite else {
                    throw GainMapIssue(.metadata, "hdrgm:\(name) value \"\(s.prefix(40))\" is not a number")
                }
                result.append(v)
            }
            return result
        }
        _ = maxima
        let minimum = try numbers("GainMapMin", default: 0)
        let maximum = try numbers("GainMapMax", default: nil)
        let gamma = try numbers("Gamma", default: 1)
        let offsetSDR = try numbers("OffsetSDR", default: 1.0 / 64)
        let offsetHDR = try numbers("OffsetHDR", default: 1.0 / 64)
        let capacityMin = try numbers("HDRCapacityMin", default: 0)
        let capacityMax = try numbers("HDRCapacityMax", default: nil)
        guard capacityMin.count == 1, capacityMax.count == 1 else {
            throw GainMapIssue(.metadata, "hdrgm:HDRCapacityMin and HDRCapacityMax take one value each")
        }
        let lists = [minimum, maximum, gamma, offsetSDR, offsetHDR]
        let count = lists.contains { $0.count == 3 } ? 3 : 1
        let channels = (0..<count).map { i in
            GainMapMetadata.Channel(
                gainMapMin: minimum[min(i, minimum.count - 1)], gainMapMax: maximum[min(i, maximum.count - 1)],
                gamma: gamma[min(i, gamma.count - 1)], baseOffset: offsetSDR[min(i, offsetSDR.count - 1)],
                alternateOffset: offsetHDR[min(i, offsetHDR.count - 1)])
        }
        let baseIsHDR = value(prefix + ":BaseRenditionIsHDR", in: text)?.first?.lowercased() == "true"
        let metadata = GainMapMetadata(
            channels: channels, baseHeadroom: capacityMin[0], alternateHeadroom: capacityMax[0], baseIsHDR: baseIsHDR)
        try metadata.validate()
        content.metadata = metadata
        return content
    }

    /// The prefix `text` binds to `uri` (`xmlns:prefix="uri"`).
    static func prefix(bound uri: String, in text: String) -> String? {
        var rest = text[...]
        while let range = rest.range(of: "xmlns:") {
            rest = rest[range.upperBound...]
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            var after = rest[rest.index(after: equals)...].drop { $0 == " " }
            guard let quote = after.first, quote == "\"" || quote == "'" else { continue }
            after = after.dropFirst()
            guard let close = after.firstIndex(of: quote) else { return nil }
            if after[..<close] == uri[...], !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) {
                return name
            }
        }
        return nil
    }

    /// The values of property `name`: an attribute's value, an element's text, or the items of
    /// an `rdf:Seq`/`rdf:Bag`/`rdf:Alt` inside the element. `nil` when absent.
    static func value(_ name: String, in text: String) -> [String]? {
        var rest = text[...]
        while let range = rest.range(of: name) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = rest[range.upperBound...]
            rest = after
            if let before, before.isWhitespace {
                // Attribute form: name="value".
                let afterName = after.drop { $0 == " " }
                guard afterName.first == "=" else { continue }
                let valueStart = afterName.dropFirst().drop { $0 == " " }
                guard let quote = valueStart.first, quote == "\"" || quote == "'" else { continue }
                let body = valueStart.dropFirst()
                guard let close = body.firstIndex(of: quote) else { return nil }
                return [String(body[..<close])]
            }
            if before == "<", let tagEnd = after.firstIndex(of: ">") {
                // Element form: <name>value</name> or <name><rdf:Seq><rdf:li>v</rdf:li>…
                guard after[..<tagEnd].allSatisfy({ $0.isWhitespace }) else { continue }
                let body = after[after.index(after: tagEnd)...]
                guard let end = body.range(of: "</" + name) else { return nil }
                let inner = body[..<end.lowerBound]
                let items = listItems(in: inner)
                return items.isEmpty ? [String(inner)] : items
            }
        }
        return nil
    }

    /// The texts of the `<rdf:li>` items in `text`.
    static func listItems(in text: Substring) -> [String] {
        var items: [String] = []
        var rest = text
        while let open = rest.range(of: "<rdf:li") {
            guard let tagEnd = rest[open.upperBound...].firstIndex(of: ">") else { break }
            let body = rest[rest.index(after: tagEnd)...]
            guard let close = body.range(of: "</rdf:li>") else { break }
            items.append(String(body[..<close.lowerBound]))
            rest = body[close.upperBound...]
            if items.count > 16 { break }
        }
        return items
    }

    /// The `Item:Length` of the container directory's item whose `Item:Semantic` is `GainMap`.
    static func gainMapItemLength(in text: String) -> Int? {
        guard let semantic = text.range(of: "Item:Semantic=\"GainMap\"") else { return nil }
        let tail = text[semantic.upperBound...]
        let itemEnd = tail.range(of: "/>")?.lowerBound ?? tail.endIndex
        let item = String(tail[..<itemEnd])
        return value("Item:Length", in: " " + item).flatMap { $0.first.flatMap { Int($0) } }
    }

    /// A gain-map image's packet for `metadata`, in the form libultrahdr writes.
    public static func mapPacket(for metadata: GainMapMetadata) -> Data {
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        let channels = metadata.channels
        func property(_ name: String, _ values: [Double]) -> (attribute: String?, element: String?) {
            if values.allSatisfy({ $0 == values[0] }) { return ("        hdrgm:\(name)=\"\(number(values[0]))\"", nil) }
            let items = values.map { "          <rdf:li>\(number($0))</rdf:li>" }.joined(separator: "\n")
            return (nil, "      <hdrgm:\(name)>\n        <rdf:Seq>\n\(items)\n        </rdf:Seq>\n      </hdrgm:\(name)>")
        }
        let perChannel = [
            property("GainMapMin", channels.map(\.gainMapMin)), property("GainMapMax", channels.map(\.gainMapMax)),
            property("Gamma", channels.map(\.gamma)), property("OffsetSDR", channels.map(\.baseOffset)),
            property("OffsetHDR", channels.map(\.alternateOffset)),
        ]
        var attributes = [
            "        xmlns:hdrgm=\"\(namespace)\"", "        hdrgm:Version=\"1.0\"",
            "        hdrgm:HDRCapacityMin=\"\(number(metadata.baseHeadroom))\"",
            "        hdrgm:HDRCapacityMax=\"\(number(metadata.alternateHeadroom))\"",
            "        hdrgm:BaseRenditionIsHDR=\"\(metadata.baseIsHDR ? "True" : "False")\"",
        ]
        attributes += perChannel.compactMap(\.attribute)
        let elements = perChannel.compactMap(\.element)
        let description = elements.isEmpty
            ? "    <rdf:Description rdf:about=\"\"\n\(attributes.joined(separator: "\n"))/>"
            : "    <rdf:Description rdf:about=\"\"\n\(attributes.joined(separator: "\n"))>\n\(elements.joined(separator: "\n"))\n    </rdf:Description>"
        return packet(description)
    }

    /// A primary image's packet: the `hdrgm` version and a container directory naming the
    /// primary and the gain-map image of `gainMapLength` bytes (Ultra HDR 1.0).
    public static func primaryPacket(gainMapLength: Int) -> Data {
        packet("""
                <rdf:Description rdf:about=""
                    xmlns:Container="http://ns.google.com/photos/1.0/container/"
                    xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
                    xmlns:hdrgm="\(namespace)"
                    hdrgm:Version="1.0">
                  <Container:Directory>
                    <rdf:Seq>
                      <rdf:li rdf:parseType="Resource">
                        <Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/>
                      </rdf:li>
                      <rdf:li rdf:parseType="Resource">
                        <Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(gainMapLength)"/>
                      </rdf:li>
                    </rdf:Seq>
                  </Container:Directory>
                </rdf:Description>
            """)
    }

    static func packet(_ description: String) -> Data {
        Data("""
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="swift-web-image">
              <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            \(description)
              </rdf:RDF>
            </x:xmpmeta>
            """.utf8)
    }
}
