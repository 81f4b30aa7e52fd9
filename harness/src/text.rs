//! Text normalization shared by the lint, the resolver and the expect checks, so that
//! "the same label" means one thing everywhere; and the one spelling of an enum value in words.

/// Folds a control label for comparison: case, runs of whitespace, curly quotes and
/// apostrophes, and the ellipsis character, as a careful person reading a screen would.
pub(crate) fn normalize_label(s: &str) -> String {
    if s.is_ascii() {
        // The usual case, and the resolver folds every target's strings on every lookup.
        let mut out = Vec::with_capacity(s.len());
        push_normalized_ascii(s.as_bytes(), &mut out);
        return String::from_utf8(out).expect("ASCII in, ASCII out");
    }
    normalize_chars(s)
}

/// [`normalize_label`], char by char: for any text.
fn normalize_chars(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.trim().chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{2032}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' => '"',
            '\u{00A0}' | '\u{2007}' | '\u{202F}' => ' ',
            c => c,
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        if c == '\u{2026}' {
            out.push_str("...");
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// [`normalize_label`] of the ASCII text `s`, appended to `out`: no ASCII character is a
/// curly quote or an ellipsis, and ASCII lowercasing is Unicode lowercasing there.
pub(crate) fn push_normalized_ascii(s: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    let mut space = false;
    for &b in s {
        // `char::is_whitespace` on ASCII: tab … carriage return, and space.
        if matches!(b, b'\t'..=b'\r' | b' ') {
            space = true;
            continue;
        }
        if space && out.len() > start {
            out.push(b' ');
        }
        space = false;
        out.push(b.to_ascii_lowercase());
    }
}

/// Whether `text` holds `phrase` as whole words (not inside a longer word), both folded as
/// labels are. A phrase with no letter or digit is never held.
pub(crate) fn holds_phrase(text: &str, phrase: &str) -> bool {
    let (w, e) = (normalize_label(text), normalize_label(phrase));
    if !e.chars().any(char::is_alphanumeric) {
        return false;
    }
    let joined = |outer: Option<char>, inner: Option<char>| {
        outer.is_some_and(char::is_alphanumeric) && inner.is_some_and(char::is_alphanumeric)
    };
    w.match_indices(&e).any(|(at, _)| {
        let before = w[..at].chars().next_back();
        let after = w[at + e.len()..].chars().next();
        !joined(before, e.chars().next()) && !joined(after, e.chars().next_back())
    })
}

/// Whether a step's words speak of an input: they hold its name, or its id read as words
/// (`wifi-password` as "wifi password"), as whole words.
pub(crate) fn speaks_of(words: &str, id: &str, name: &str) -> bool {
    holds_phrase(words, name) || holds_phrase(words, &id.replace(['-', '_'], " "))
}

/// The words of a text, lowercased, split at anything that is not a letter or digit.
pub(crate) fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Keeps `[A-Za-z0-9_-]` and turns anything else into `_`, so a name made from an id is safe
/// as a file name and in a URL, and can never climb out of its folder.
pub(crate) fn slug(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() { "_".into() } else { out }
}

/// The kebab-case word serde writes for a unit enum value (`target-not-found`).
pub fn word<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_value(x)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `1 scenario`, `2 scenarios`: the count and the word that agrees with it.
pub(crate) fn plural<N: std::fmt::Display + PartialEq + From<u8>>(
    n: N,
    one: &str,
    many: &str,
) -> String {
    let word = if n == N::from(1) { one } else { many };
    format!("{n} {word}")
}

/// Whether XML 1.0 lets `c` stand in a document without a parser refusing it or warning:
/// not a control other than tab, LF and CR (C0, DEL, C1), nor a noncharacter (U+FDD0–U+FDEF,
/// U+FFFE and U+FFFF of every plane).
pub fn xml_char_ok(c: char) -> bool {
    let n = u32::from(c);
    let control = c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    let nonchar = (0xFDD0..=0xFDEF).contains(&n) || n & 0xFFFE == 0xFFFE;
    !control && !nonchar
}

/// `s` with every character [`xml_char_ok`] refuses replaced by U+FFFD: the one rule every
/// XML and HTML writer applies to text from the inputs.
pub(crate) fn xml_safe(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().all(xml_char_ok) {
        return std::borrow::Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| if xml_char_ok(c) { c } else { '\u{FFFD}' })
        .collect::<String>()
        .into()
}

/// The candidate `word` was most likely meant to be, for "did you mean …?": the nearest by
/// Jaro–Winkler similarity (clap's measure), when it is near enough to be a typo.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(word, c), *c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    #[test]
    fn xml_safe_replaces_what_xml_1_0_refuses_or_discourages() {
        use super::xml_safe;
        assert_eq!(xml_safe("a\tb\nc\rd é 😀"), "a\tb\nc\rd é 😀");
        for bad in [
            '\0',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{9f}',
            '\u{FDD0}',
            '\u{FFFE}',
            '\u{FFFF}',
            '\u{1FFFF}',
            '\u{10FFFF}',
        ] {
            assert_eq!(
                xml_safe(&format!("x{bad}y")),
                "x\u{FFFD}y",
                "{:04X}",
                u32::from(bad)
            );
        }
    }

    use super::*;

    #[test]
    fn labels_fold_case_space_quotes_and_ellipsis() {
        assert_eq!(normalize_label("  Save  As…"), "save as...");
        assert_eq!(normalize_label("Save As..."), "save as...");
        assert_eq!(normalize_label("Don’t\tSave"), "don't save");
        assert_eq!(normalize_label("“Send”"), "\"send\"");
    }

    #[test]
    fn the_ascii_path_folds_as_the_char_path_does() {
        // Every ASCII byte appears, whitespace of every kind and at the ends included
        // (fixed seed: the same strings every run).
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for round in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 14) as usize;
            let s: String = (0..len)
                .map(|k| {
                    let r = seed.rotate_left(k as u32 * 9);
                    // Half the time from a whitespace-heavy pool, else any ASCII byte.
                    if r & 1 == 0 {
                        [' ', '\t', '\n', '\x0b', '\x0c', '\r', 'A', 'z'][(r >> 1) as usize % 8]
                    } else {
                        char::from((r >> 1) as u8 & 0x7f)
                    }
                })
                .collect();
            let mut fast = Vec::new();
            push_normalized_ascii(s.as_bytes(), &mut fast);
            assert_eq!(
                fast,
                normalize_chars(&s).into_bytes(),
                "round {round}: {s:?}"
            );
        }
    }

    #[test]
    fn words_split_on_punctuation() {
        assert_eq!(words("Send…now!"), vec!["send", "now"]);
    }

    #[test]
    fn closest_names_a_typo_and_nothing_else() {
        let names = ["label", "role", "near"];
        assert_eq!(closest("labl", &names), Some("label"));
        assert_eq!(closest("rol", &names), Some("role"));
        assert_eq!(closest("selector", &names), None);
    }

    #[test]
    fn holds_whole_words_only() {
        let holds = holds_phrase;
        assert!(holds("Re: accounts@example.com", "accounts@example.com"));
        assert!(holds("Invoice  INV-42 ", "inv-42"));
        assert!(holds("Invoice 42", "42"));
        assert!(!holds("Invoice 420", "42"));
        assert!(!holds("myaccounts@example.com", "accounts@example.com"));
        assert!(!holds("Inbox", ""));
        assert!(!holds("Re: …", "..."));
    }

    #[test]
    fn words_speak_of_an_input_by_name_or_id() {
        assert!(speaks_of(
            "Ask which tone the reply should have",
            "tone",
            "tone of the reply"
        ));
        assert!(speaks_of(
            "Have the Office Wi-Fi password ready",
            "wifi-password",
            "Wi-Fi password"
        ));
        assert!(speaks_of(
            "Ask for the client email",
            "client-email",
            "address"
        ));
        assert!(!speaks_of(
            "Ask which stone to use",
            "tone",
            "tone of the reply"
        ));
    }
}
