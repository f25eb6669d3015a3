import BeaconRules
import BenchmarkWorkload
import CampaignFiles
import Foundation

/// The generated files of a workload, made once per spec and reused.
enum Workspace {
    struct Files {
        var campaigns: String
        var events: String
        var eventBytes: Int
    }

    static func prepare(spec: WorkloadSpec, folder: String) throws -> Files {
        let fm = FileManager.default
        let stamp = "\(spec.campaigns)-\(spec.uuids)-\(spec.events)-\(spec.devices)-\(spec.seed)-\(spec.locales.joined(separator: ","))" + (spec.beaconsPerVenue == WorkloadSpec.majors * WorkloadSpec.minors ? "" : "-\(spec.beaconsPerVenue)")
        let stampPath = folder + "/spec"
        let campaigns = folder + "/campaigns"
        let events = folder + "/events.jsonl"
        if (try? String(contentsOfFile: stampPath, encoding: .utf8)) != stamp {
            try? fm.removeItem(atPath: folder)
            try fm.createDirectory(atPath: campaigns, withIntermediateDirectories: true)
            _ = fm.createFile(atPath: campaigns + "/bench.json", contents: Data(spec.campaignsJSON()))
            _ = fm.createFile(atPath: events, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: events))
            spec.generateEvents { handle.write(Data($0)) }
            try handle.close()
            try stamp.write(toFile: stampPath, atomically: true, encoding: .utf8)
        }
        let size = (try fm.attributesOfItem(atPath: events)[.size] as? Int) ?? 0
        return Files(campaigns: campaigns, events: events, eventBytes: size)
    }

    /// Reads, parses, decodes and indexes `spec.campaigns` campaigns in-process, from ten files as a
    /// campaign set is usually kept (by venue or team): the files are read on all cores.
    static func measureLoad(spec: WorkloadSpec, folder: String) throws -> (seconds: Double, decode: Double, megabytes: Double) {
        let path = folder + "/load-\(spec.campaigns)"
        var size = 0.0
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for part in 0..<10 {
                var piece = spec
                piece.campaigns = spec.campaigns / 10 + (part < spec.campaigns % 10 ? 1 : 0)
                piece.seed = spec.seed &+ UInt64(part) &* 7919
                _ = FileManager.default.createFile(atPath: path + "/part-\(part).json", contents: Data(piece.campaignsJSON()))
            }
        }
        for file in try FileManager.default.contentsOfDirectory(atPath: path) {
            size += Double((try FileManager.default.attributesOfItem(atPath: path + "/" + file)[.size] as? Int) ?? 0)
        }
        var best = (seconds: Double.infinity, decode: 0.0)
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            let catalog = CampaignFileReader().load(paths: [path])
            let decoded = DispatchTime.now().uptimeNanoseconds
            let set = CampaignSet(catalog.campaigns)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            precondition(catalog.errors.isEmpty && set.count == spec.campaigns, "the load workload must load")
            if seconds < best.seconds { best = (seconds, Double(decoded - start) / 1e9) }
        }
        return (best.seconds, best.decode, size / 1e6)
    }

    /// The first `lines` lines of `path`, streamed so that this process stays small.
    static func head(_ path: String, lines: Int, to output: String) throws -> String {
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        var seen = 0
        while seen < lines, let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            var end = chunk.count
            for (i, byte) in chunk.enumerated() where byte == 0x0A {
                seen += 1
                if seen == lines { end = i + 1; break }
            }
            out.write(chunk.prefix(end))
        }
        try input.close()
        try out.close()
        return output
    }
}
