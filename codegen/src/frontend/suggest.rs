//! "Did you mean": the known name closest to a misspelt one, by edit distance.
//!
//! The distance is optimal string alignment (Levenshtein plus adjacent transpositions, so
//! `lenght` is one edit from `length`), over chars, with a case-only difference counting as
//! zero (`pi` → `PI`). A candidate is suggested when it is at most `max(len, 3) / 3` edits
//! away (rustc's threshold: one edit in a short name, a third of a long one); ties go to the
//! candidate that comes first, so the message is deterministic.

/// `"; did you mean `name`?"` for the closest candidate, or `""` when none is close.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match closest(name, candidates) {
        Some(best) => format!("; did you mean `{best}`?"),
        None => String::new(),
    }
}

/// The closest candidate within the threshold, if any (never `name` itself).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = name.chars().count().max(3) / 3;
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let d = if c.eq_ignore_ascii_case(name) {
            0
        } else {
            distance(name, c)
        };
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Optimal string alignment distance between `a` and `b` (insertions, deletions,
/// substitutions and transpositions of adjacent chars, each costing one).
pub fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // rows[k][j]: distance between a[..i-2+k] and b[..j] for the last three rows i-2, i-1, i.
    let mut rows = [
        vec![0; b.len() + 1],
        vec![0; b.len() + 1],
        (0..=b.len()).collect(),
    ];
    for i in 1..=a.len() {
        rows.rotate_left(1);
        rows[2][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[1][j] + 1)
                .min(rows[2][j - 1] + 1)
                .min(rows[1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[0][j - 2] + 1);
            }
            rows[2][j] = d;
        }
    }
    rows[2][b.len()]
}
