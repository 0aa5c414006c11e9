//! Mutations of model texts at the token level: deleted, duplicated, swapped, replaced and
//! inserted tokens (keywords of the grammar, punctuation, huge, tiny and non-finite numbers,
//! integer overflows, unicode), a call's argument removed or one added (wrong arity), an atom
//! wrapped in deep nesting, a range bound made huge, a whole entry dropped, the text cut short.

use crate::expr::{below, chance, pick};
use mbsim_testkit::Rng;

/// One lexical piece of a text: a token or the whitespace between tokens.
#[derive(Clone, Debug, PartialEq)]
struct Piece {
    text: String,
    space: bool,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Tokens (identifiers and numbers, `..=`, `::`, single punctuation) and the whitespace
/// between them.
fn lex(text: &str) -> Vec<Piece> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
        } else if c.is_ascii_digit() {
            while i < chars.len()
                && (is_ident(chars[i])
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
                    || (chars[i] == '-' && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
        } else if is_ident(c) {
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            i += if rest.starts_with("..=") {
                3
            } else if rest.starts_with("..") || rest.starts_with("::") {
                2
            } else {
                1
            };
        }
        out.push(Piece {
            text: chars[start..i].iter().collect(),
            space: c.is_whitespace(),
        });
    }
    out
}

/// Replacement and insertion material.
const DICTIONARY: &[&str] = &[
    // grammar
    "let",
    "const",
    "for",
    "in",
    "if",
    "else",
    "sum",
    "diag",
    "body",
    "ground",
    "true",
    "false",
    "coordinates",
    "holonomic",
    "nonholonomic",
    "mass",
    "force",
    "kinetic",
    "potential",
    "tangents",
    "bodies",
    "joints",
    "loads",
    "draw",
    "points",
    "segments",
    "crate",
    "t",
    "revolute",
    "translational",
    "spherical",
    "universal",
    "fixed",
    "distance",
    "absolute",
    "relative",
    "rotation",
    "gravity",
    "torque",
    "tsda",
    "rsda",
    "body_energy",
    "self",
    "Self",
    "powi",
    "powf",
    "sqrt",
    "sin",
    "atan2",
    "hypot",
    "min",
    "PI",
    "f64",
    "as",
    "_",
    "r#x",
    // punctuation
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ":",
    "=",
    "==",
    "+",
    "-",
    "*",
    "/",
    "%",
    ".",
    "..",
    "..=",
    "<",
    ">",
    "!",
    "&&",
    "||",
    "?",
    "#",
    "::",
    "'a",
    "\"s\"",
    "'c'",
    "//",
    "/*",
    "*/",
    // numbers
    "0",
    "0.0",
    "-0.0",
    "1e308",
    "1e309",
    "-1e309",
    "1e-320",
    "5e-324",
    "1e400",
    "2.5e-310",
    "f64::NAN",
    "f64::INFINITY",
    "f64::NEG_INFINITY",
    "f64::MAX",
    "f64::MIN_POSITIVE",
    "f64::EPSILON",
    "99999999999999999999999",
    "18446744073709551616",
    "4294967296",
    "2147483648",
    "9223372036854775807",
    "1_000",
    "0x10",
    "0b11",
    "1u8",
    "1.5f32",
    "1e",
    "1.e3",
    "u64::MAX",
    "i32::MIN",
    "0.1e-1e",
    // unicode and oddities
    "θ",
    "日本",
    "ñ",
    "x\u{301}",
    "\u{1F980}",
    "\u{200b}",
    "Ω",
    "a\u{0}b",
    "ſ",
    "ǅ",
];

fn tokens(pieces: &[Piece]) -> Vec<usize> {
    (0..pieces.len()).filter(|&i| !pieces[i].space).collect()
}

fn token(text: &str) -> Piece {
    Piece {
        text: text.to_string(),
        space: false,
    }
}

/// `text` with 1–3 random mutations.
pub fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut pieces = lex(text);
    for _ in 0..1 + below(rng, 3) {
        mutate_once(rng, &mut pieces);
    }
    pieces.iter().map(|p| p.text.as_str()).collect()
}

fn mutate_once(rng: &mut Rng, pieces: &mut Vec<Piece>) {
    let toks = tokens(pieces);
    if toks.is_empty() {
        pieces.push(token(pick::<&str>(rng, DICTIONARY)));
        return;
    }
    let at = *pick(rng, &toks);
    match below(rng, 10) {
        0 => {
            pieces.remove(at);
        }
        1 => {
            let copy = pieces[at].clone();
            pieces.insert(at, copy);
        }
        2 => {
            let other = if chance(rng, 0.5) {
                toks[(toks.iter().position(|&t| t == at).unwrap_or(0) + 1) % toks.len()]
            } else {
                *pick(rng, &toks)
            };
            pieces.swap(at, other);
        }
        3 => pieces[at] = token(pick::<&str>(rng, DICTIONARY)),
        4 => {
            pieces.insert(at, token(" "));
            pieces.insert(at, token(pick::<&str>(rng, DICTIONARY)));
        }
        5 => arity(rng, pieces, &toks),
        6 => nest(rng, pieces, at),
        7 if chance(rng, 0.5) => huge_bound(rng, pieces, &toks),
        7 => drop_entry(rng, pieces),
        8 => {
            let keep = below(rng, pieces.len());
            pieces.truncate(keep);
        }
        _ => {
            // A number replaced by an extreme one (the commonest source of trouble).
            let numbers: Vec<usize> = toks
                .iter()
                .copied()
                .filter(|&i| pieces[i].text.starts_with(|c: char| c.is_ascii_digit()))
                .collect();
            let i = if numbers.is_empty() {
                at
            } else {
                *pick(rng, &numbers)
            };
            pieces[i] = token(pick::<&str>(
                rng,
                &[
                    "1e308",
                    "1e309",
                    "0.0",
                    "5e-324",
                    "99999999999999999999",
                    "4294967296",
                    "1e-300",
                    "1e300",
                    "65536",
                    "1000000",
                ],
            ));
        }
    }
}

/// Remove one argument of a call, or add one.
fn arity(rng: &mut Rng, pieces: &mut Vec<Piece>, toks: &[usize]) {
    let calls: Vec<usize> = toks
        .windows(2)
        .filter(|w| pieces[w[1]].text == "(" && pieces[w[0]].text.starts_with(is_ident))
        .map(|w| w[1])
        .collect();
    let Some(&open) = (!calls.is_empty()).then(|| pick(rng, &calls)) else {
        return;
    };
    let mut depth = 0;
    let mut commas = Vec::new();
    let mut close = None;
    for i in open..pieces.len() {
        match pieces[i].text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            "," if depth == 1 => commas.push(i),
            _ => {}
        }
    }
    let Some(close) = close else { return };
    if chance(rng, 0.5) && !commas.is_empty() {
        // drop the argument after a comma (up to the next comma or the closing parenthesis)
        let k = below(rng, commas.len());
        let end = commas.get(k + 1).copied().unwrap_or(close);
        pieces.drain(commas[k]..end);
    } else {
        pieces.insert(close, token(", 1.0"));
    }
}

/// Wrap the token at `at` in deep nesting.
fn nest(rng: &mut Rng, pieces: &mut [Piece], at: usize) {
    let depth = *pick(rng, &[8, 64, 256, 1024, 4096]);
    let atom = pieces[at].text.clone();
    let text = match below(rng, 5) {
        0 => format!("{}{atom}{}", "(".repeat(depth), ")".repeat(depth)),
        1 => format!("{atom}{}", ".sin()".repeat(depth)),
        2 => format!("{}{atom}", "-".repeat(depth)),
        3 => format!("{}{atom}{}", "[".repeat(depth), "]".repeat(depth)),
        _ => {
            let mut s = atom.clone();
            for _ in 0..depth.min(512) {
                s = format!("if {s} > 0.0 {{ {s} }} else {{ 1.0 }}");
                if s.len() > 1 << 16 {
                    break;
                }
            }
            s
        }
    };
    pieces[at] = token(&text);
}

/// Remove one whole entry of the attribute (a key, a `let`, a `const`): the text from one
/// top-level comma (depth 1, inside `#[model(`) to the next.
fn drop_entry(rng: &mut Rng, pieces: &mut Vec<Piece>) {
    let mut depth = 0;
    let mut commas = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        match p.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "," if depth == 2 => commas.push(i),
            _ => {}
        }
    }
    if commas.len() >= 2 {
        let k = below(rng, commas.len() - 1);
        pieces.drain(commas[k]..commas[k + 1]);
    }
}

/// A range bound (`const N = 3`, `0..=N`, `[f64; 3]`) made huge.
fn huge_bound(rng: &mut Rng, pieces: &mut [Piece], toks: &[usize]) {
    let candidates: Vec<usize> = toks
        .windows(2)
        .filter(|w| {
            matches!(pieces[w[0]].text.as_str(), "=" | ".." | "..=" | ";")
                && pieces[w[1]]
                    .text
                    .starts_with(|c: char| c.is_ascii_digit() || c == 'N')
        })
        .map(|w| w[1])
        .collect();
    if let Some(&i) = (!candidates.is_empty()).then(|| pick(rng, &candidates)) {
        pieces[i] = token(pick::<&str>(
            rng,
            &[
                "100000",
                "4294967296",
                "18446744073709551615",
                "1000000000",
                "250000",
            ],
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexing_keeps_the_text() {
        let text = "let a[i in 0..=N] = x.powi(2) + 1.5e-3 * θ_dot::f; // c";
        let pieces = lex(text);
        let back: String = pieces.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(back, text);
        let toks: Vec<&str> = pieces
            .iter()
            .filter(|p| !p.space)
            .map(|p| p.text.as_str())
            .collect();
        assert!(
            toks.contains(&"..=") && toks.contains(&"1.5e-3") && toks.contains(&"θ_dot"),
            "{toks:?}"
        );
    }
}
