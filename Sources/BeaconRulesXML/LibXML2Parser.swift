import BeaconRules
import CLibXML2

/// Parses an export with libxml2 and hands back plain `ParsedElement` values. The only file that
/// touches libxml2.
///
/// Safety, in order: the size limit is checked before libxml2 sees a byte; the options never ask
/// for DTD loading or entity substitution and forbid the network; a DOCTYPE stops the parser the
/// moment it is read, before its internal subset (where entity bombs and external entities live)
/// is parsed; an external entity loader that refuses everything is installed for good measure; a
/// start tag deeper than the limit stops the parser. libxml2's messages go to a structured error
/// handler on this parse only, never to stderr.
enum LibXML2Parser {
    static let options: Int32 = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue)

    /// One-time set-up of libxml2's globals: done once, before the first parse, on whatever thread.
    private static let prepared: Bool = {
        xmlInitParser()
        // Reached only if a future option change let libxml2 look for an external resource.
        xmlSetExternalEntityLoader { _, _, _ in nil }
        return true
    }()

    static func parse(_ bytes: [UInt8], file: String, limits: XMLLimits) throws(XMLCampaignError) -> (root: ParsedElement, warnings: [XMLCampaignError]) {
        let start = SourceLocation(file: file, line: 1, column: 1)
        if bytes.count > limits.maximumBytes {
            throw XMLCampaignError(start, "the file is \(bytes.count) bytes; a campaign export may be at most \(limits.maximumBytes) bytes (\(limits.maximumBytes >> 20) MiB): split it into several files")
        }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw XMLCampaignError(start, "the file is UTF-16; save the export as UTF-8")
        }
        guard !bytes.isEmpty else { throw XMLCampaignError(start, "the file is empty; expected <campaigns xmlns=\"\(XMLCampaignSchema.namespace)\">") }
        _ = prepared

        let map = XMLSourceMap(bytes: bytes)
        let session = ParseSession(map: map, file: file, maximumDepth: limits.maximumDepth)
        let sessionPointer = Unmanaged.passRetained(session)
        defer { sessionPointer.release() }

        let ctxt: xmlParserCtxtPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                // libxml2 copies the bytes into its own buffer here.
                xmlCreateMemoryParserCtxt(chars.baseAddress, Int32(chars.count))
            }
        }
        guard let ctxt else { throw XMLCampaignError(start, "libxml2 could not start a parser (out of memory?)") }
        defer { xmlFreeParserCtxt(ctxt) }
        _ = xmlCtxtUseOptions(ctxt, options)
        ctxt.pointee._private = sessionPointer.toOpaque()
        if let sax = ctxt.pointee.sax {
            sax.pointee.internalSubset = refuseDoctype
            sax.pointee.entityDecl = refuseEntity
            sax.pointee.startElementNs = startElementWithinDepth
            sax.pointee.serror = collectError
        }
        // Errors raised without a parser context (tree building) go to the per-thread handlers:
        // catch those too, and put the defaults back afterwards.
        xmlSetStructuredErrorFunc(sessionPointer.toOpaque(), collectThreadError)
        defer { xmlSetStructuredErrorFunc(nil, nil) }

        _ = xmlParseDocument(ctxt)
        let doc = ctxt.pointee.myDoc
        defer { if let doc { xmlFreeDoc(doc) } }

        if let refusal = session.refusal { throw refusal }
        let fatal = session.libxml2Errors.first { $0.severity == .error }
        if let fatal { throw fatal }
        guard ctxt.pointee.wellFormed != 0, let doc, let rootNode = xmlDocGetRootElement(doc) else {
            throw XMLCampaignError(start, "the file is not a well-formed XML document; expected <campaigns xmlns=\"\(XMLCampaignSchema.namespace)\">")
        }
        var root = element(from: rootNode, doc: doc)
        map.locate(&root)
        return (root, session.libxml2Errors)
    }

    /// Copies a libxml2 element and its descendants into values.
    private static func element(from node: xmlNodePtr, doc: xmlDocPtr) -> ParsedElement {
        var result = ParsedElement(
            name: string(node.pointee.name) ?? "",
            namespace: node.pointee.ns.flatMap { string($0.pointee.href) },
            attributes: [], children: [], text: "")
        var attribute = node.pointee.properties
        while let a = attribute {
            var name = string(a.pointee.name) ?? ""
            if let prefix = a.pointee.ns.flatMap({ string($0.pointee.prefix) }) { name = prefix + ":" + name }
            var value = ""
            if let text = xmlNodeListGetString(doc, a.pointee.children, 1) {
                value = String(cString: text)
                beaconrules_xmlFree(text)
            }
            result.attributes.append(ParsedAttribute(name: name, value: value))
            attribute = a.pointee.next
        }
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE: result.children.append(element(from: c, doc: doc))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: result.text += string(c.pointee.content) ?? ""
            default: break // comments and processing instructions carry nothing for campaigns
            }
            child = c.pointee.next
        }
        return result
    }

    private static func string(_ text: UnsafePointer<xmlChar>?) -> String? {
        text.map { String(cString: $0) }
    }
}

/// What one parse collects from libxml2's callbacks. Reached through the parser context's
/// `_private` pointer; used only on the parsing thread, during `parse`.
private final class ParseSession {
    let map: XMLSourceMap
    let file: String
    let maximumDepth: Int
    /// A refusal of ours (DOCTYPE, depth); the first one wins and stops the parser.
    var refusal: XMLCampaignError?
    var libxml2Errors: [XMLCampaignError] = []

    init(map: XMLSourceMap, file: String, maximumDepth: Int) {
        self.map = map
        self.file = file
        self.maximumDepth = maximumDepth
    }

    static func of(_ ctx: UnsafeMutableRawPointer?) -> (xmlParserCtxtPtr, ParseSession)? {
        guard let ctxt = ctx?.assumingMemoryBound(to: xmlParserCtxt.self), let raw = ctxt.pointee._private else { return nil }
        return (ctxt, Unmanaged<ParseSession>.fromOpaque(raw).takeUnretainedValue())
    }

    func location(ofOffset offset: Int) -> SourceLocation {
        let p = map.position(of: offset)
        return SourceLocation(file: file, line: p.line, column: p.column)
    }

    func refuse(_ ctxt: xmlParserCtxtPtr, at offset: Int, _ message: String) {
        if refusal == nil { refusal = XMLCampaignError(location(ofOffset: offset), message) }
        xmlStopParser(ctxt)
    }

    func collect(_ error: xmlErrorPtr?) {
        guard let error, refusal == nil else { return }
        var text = error.pointee.message.map { String(cString: $0) } ?? "unknown libxml2 error"
        while text.last == "\n" || text.last == " " { text.removeLast() }
        let severity: Diagnostic.Severity = error.pointee.level == XML_ERR_WARNING ? .warning : .error
        let line = Int(error.pointee.line)
        let column = Int(error.pointee.int2)
        let location = SourceLocation(file: file, line: max(line, 1), column: column > 0 ? column : nil)
        let message = severity == .error ? "not well-formed XML: \(text)" : text
        libxml2Errors.append(XMLCampaignError(location, message, libxml2Message: text, severity: severity))
    }
}

/// A DOCTYPE is where entities are declared; exports never need one, so any DOCTYPE is refused
/// before libxml2 reads its internal subset.
private let refuseDoctype: internalSubsetSAXFunc = { ctx, _, _, _ in
    guard let (ctxt, session) = ParseSession.of(ctx) else { return }
    let consumed = Int(xmlByteConsumed(ctxt))
    let offset = session.map.lastOccurrence(of: "<!DOCTYPE", before: max(consumed, 0) + 1) ?? session.map.markupStart(before: consumed)
    session.refuse(ctxt, at: offset, "a DOCTYPE is not allowed in a campaign export: DTDs and entity declarations (external entities, entity expansion) are refused for safety; remove the <!DOCTYPE ...> declaration")
}

/// Never reached while DOCTYPEs are refused; kept so that an entity declaration can not slip through.
private let refuseEntity: entityDeclSAXFunc = { ctx, name, _, _, _, _ in
    guard let (ctxt, session) = ParseSession.of(ctx) else { return }
    let consumed = Int(xmlByteConsumed(ctxt))
    let entity = name.map { String(cString: $0) } ?? "?"
    session.refuse(ctxt, at: session.map.markupStart(before: consumed), "entity declarations are not allowed in a campaign export (entity \"\(entity)\"); remove the DOCTYPE")
}

private let startElementWithinDepth: startElementNsSAX2Func = { ctx, localname, prefix, uri, nbNamespaces, namespaces, nbAttributes, nbDefaulted, attributes in
    guard let (ctxt, session) = ParseSession.of(ctx) else { return }
    // `nameNr` counts the open ancestors; this element is one deeper.
    let depth = Int(ctxt.pointee.nameNr) + 1
    if depth > session.maximumDepth {
        let consumed = Int(xmlByteConsumed(ctxt))
        let name = localname.map { String(cString: $0) } ?? "?"
        session.refuse(ctxt, at: session.map.markupStart(before: consumed), "elements are nested \(depth) deep at <\(name)>; a campaign export may nest at most \(session.maximumDepth) deep (campaigns > campaign > onEnter > strings is 4)")
        return
    }
    xmlSAX2StartElementNs(ctx, localname, prefix, uri, nbNamespaces, namespaces, nbAttributes, nbDefaulted, attributes)
}

private let collectError: xmlStructuredErrorFunc = { ctx, error in
    ParseSession.of(ctx)?.1.collect(error)
}

private let collectThreadError: xmlStructuredErrorFunc = { raw, error in
    guard let raw else { return }
    Unmanaged<ParseSession>.fromOpaque(raw).takeUnretainedValue().collect(error)
}
