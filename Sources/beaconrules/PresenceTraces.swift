import ArgumentParser
import BeaconRules
import BeaconRulesReplay

/// The traces `timeline` and `presence-score` replay: every input of the files, in file order, as
/// `replay` reads them (`--input-format`), with bad lines reported on stderr as `replay` does.
struct PresenceTraces {
    var format: InputFormat

    /// Hands every input of `sources` to `body` (`-` is stdin); an input `body` refuses is reported
    /// with its file and line. Returns how many were rejected; exit 2 when a file cannot be read.
    func forEachInput(of sources: [String], _ body: (InputEvent) throws -> Void) throws -> Int {
        var rejected = 0
        func report(_ name: String, _ line: Int, _ error: any Error) {
            rejected += 1
            StandardError.write(ErrorLine.json(kind: "error", source: name, line: line, message: "\(error)"))
        }
        for source in sources {
            let name = source == "-" ? "stdin" : source
            let bytes: [UInt8]
            do { bytes = try CompressedFile.read(source) } catch {
                StandardError.write("beaconrules: \(error)\n")
                throw ExitCode(2)
            }
            bytes.withUnsafeBufferPointer { buffer in
                switch format {
                case .starksm64:
                    RecordedScans.forEachSighting(in: buffer, source: name, { s, line in
                        do { try body(.sighting(s, typeColumn: 0)) } catch { report(name, line, error) }
                    }, rejected: { error, line in report(name, line, error) })
                case .jsonl:
                    var number = 0
                    for line in buffer.split(separator: 0x0A, omittingEmptySubsequences: false) {
                        number += 1
                        let slice = UnsafeBufferPointer(rebasing: line)
                        if EventParser.isBlank(slice) { continue }
                        do { try body(try EventParser.parsePresenceInput(line: slice, fallbackID: "\(name):\(number)")) } catch { report(name, number, error) }
                    }
                }
            }
        }
        return rejected
    }
}
