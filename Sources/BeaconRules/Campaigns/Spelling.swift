/// Finds the name a user probably meant, for "did you mean" hints in diagnostics.
package enum Spelling {
    /// The valid name nearest to `name` by edit distance (ignoring case), when it is near enough
    /// to be a slip of the keyboard rather than a different word.
    package static func closest(to name: String, in valid: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in valid {
            let d = editDistance(target, Array(candidate.lowercased().unicodeScalars))
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        guard let best else { return nil }
        let allowed = max(2, min(target.count, best.name.count) / 3)
        return best.distance <= allowed ? best.name : nil
    }

    /// Levenshtein distance: insertions, deletions and substitutions each cost one.
    package static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
