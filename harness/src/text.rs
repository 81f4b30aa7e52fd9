//! Text normalization shared by the lint, the resolver and the expect checks, so that
//! "the same label" means one thing everywhere.

/// Folds a control label for comparison: case, runs of whitespace, curly quotes and
/// apostrophes, and the ellipsis character, as a careful person reading a screen would.
pub fn normalize_label(s: &str) -> String {
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

/// The words of a text, lowercased, split at anything that is not a letter or digit.
pub fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Keeps `[A-Za-z0-9_-]` and turns anything else into `_`, so a name made from an id is safe
/// as a file name and in a URL, and can never climb out of its folder.
pub fn slug(s: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_fold_case_space_quotes_and_ellipsis() {
        assert_eq!(normalize_label("  Save  As…"), "save as...");
        assert_eq!(normalize_label("Save As..."), "save as...");
        assert_eq!(normalize_label("Don’t\tSave"), "don't save");
        assert_eq!(normalize_label("“Send”"), "\"send\"");
    }

    #[test]
    fn words_split_on_punctuation() {
        assert_eq!(words("Send…now!"), vec!["send", "now"]);
    }
}
