//! Finding a secret however it is written, and hiding it: the one matcher every judge and
//! every output uses, so a value that is caught is also redacted, and the other way round.
//!
//! A secret is found after normalising case, separators and spacing (`C-o-r-r-e-c-t`,
//! `4 3 2 1`), and inside percent-encoding, base64 and hex. Below [`FLOOR`] letters and
//! digits a secret matches only as written: a short PIN normalised would be found in every
//! order number. A normalised match of a secret under [`ANYWHERE`] letters and digits must
//! start and end on word boundaries, so `4321` is not found in `order 14321`.
//!
//! Redaction works on JSON string tokens too ([`redact_json_text`]), decoded, so a value is
//! found however a file escapes it (`\u0068unter2` is still `hunter2`).

use base64::Engine;

/// What a hidden value is shown as.
pub(crate) const REDACTED: &str = "‹redacted›";

/// Secrets with fewer letters and digits than this match only exactly as written.
pub(crate) const FLOOR: usize = 4;

/// Secrets with at least this many letters and digits are found anywhere once normalised;
/// shorter ones only as whole words.
const ANYWHERE: usize = 8;

/// The shortest run of base64 or hex worth decoding.
const MIN_ENCODED: usize = 6;

/// A text's letters and digits, lower-cased, each with the byte span it came from and
/// whether it starts or ends a word.
struct Skeleton {
    chars: Vec<char>,
    spans: Vec<(usize, usize)>,
    starts_word: Vec<bool>,
    ends_word: Vec<bool>,
}

impl Skeleton {
    fn of(text: &str) -> Skeleton {
        let mut sk = Skeleton {
            chars: Vec::new(),
            spans: Vec::new(),
            starts_word: Vec::new(),
            ends_word: Vec::new(),
        };
        let mut prev_alnum = false;
        for (i, c) in text.char_indices() {
            let alnum = c.is_alphanumeric();
            if alnum {
                for l in c.to_lowercase() {
                    sk.chars.push(l);
                    sk.spans.push((i, i + c.len_utf8()));
                    sk.starts_word.push(!prev_alnum);
                    sk.ends_word.push(false);
                }
            } else if prev_alnum && let Some(last) = sk.ends_word.last_mut() {
                *last = true;
            }
            prev_alnum = alnum;
        }
        if prev_alnum && let Some(last) = sk.ends_word.last_mut() {
            *last = true;
        }
        sk
    }

    /// The byte spans in the text where `key` (a skeleton) occurs.
    fn find(&self, key: &[char]) -> Vec<(usize, usize)> {
        let anywhere = key.len() >= ANYWHERE;
        let mut out = Vec::new();
        if key.is_empty() || key.len() > self.chars.len() {
            return out;
        }
        let mut i = 0;
        while i + key.len() <= self.chars.len() {
            let j = i + key.len();
            if self.chars[i..j] == *key
                && (anywhere || (self.starts_word[i] && self.ends_word[j - 1]))
            {
                out.push((self.spans[i].0, self.spans[j - 1].1));
                i = j;
            } else {
                i += 1;
            }
        }
        out
    }
}

fn key_of(secret: &str) -> Vec<char> {
    Skeleton::of(secret).chars
}

/// Whether `text` holds `secret`, written as it is, re-spaced, re-cased, with separators
/// between its characters, or encoded.
pub(crate) fn holds(text: &str, secret: &str) -> bool {
    if secret.is_empty() {
        return false;
    }
    let key = key_of(secret);
    if written(text, secret, key.len()) {
        return true;
    }
    if key.len() < FLOOR {
        return false;
    }
    decodings(text)
        .iter()
        .any(|t| written(t, secret, key.len()) || !Skeleton::of(t).find(&key).is_empty())
}

/// Whether `text` holds `secret` as written; a short one (under [`ANYWHERE`] letters and
/// digits) only where no letter or digit runs on into it.
fn written(text: &str, secret: &str, key_len: usize) -> bool {
    if key_len >= ANYWHERE {
        return text.contains(secret);
    }
    let alnum = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    text.match_indices(secret).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + secret.len()..].chars().next();
        let runs_in = alnum(before) && alnum(secret.chars().next());
        let runs_on = alnum(after) && alnum(secret.chars().next_back());
        !(runs_in || runs_on)
    })
}

/// `text` itself and what it decodes to: percent-decoded (with `+` as a space), and each run
/// of base64 or hex in it decoded, one level deep.
fn decodings(text: &str) -> Vec<String> {
    let mut out = vec![text.to_string()];
    let percent = percent_encoding::percent_decode_str(&text.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned();
    if percent != text {
        out.push(percent);
    }
    for token in encoded_tokens(text) {
        out.extend(decode_token(token));
    }
    out
}

/// Runs of characters that base64 (either alphabet, padding left off) or hex could be made
/// of; `=` splits, as it does `key=value`.
fn encoded_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '-' | '_')))
        .filter(|t| t.len() >= MIN_ENCODED)
}

fn decode_token(token: &str) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let mut out = Vec::new();
    let mut keep = |bytes: Vec<u8>| {
        if let Ok(s) = String::from_utf8(bytes) {
            out.push(s);
        }
    };
    for engine in [STANDARD_NO_PAD, URL_SAFE_NO_PAD] {
        if let Ok(b) = engine.decode(token) {
            keep(b);
            break;
        }
    }
    if token.len().is_multiple_of(2) && token.bytes().all(|b| b.is_ascii_hexdigit()) {
        let bytes = (0..token.len())
            .step_by(2)
            .filter_map(|i| u8::from_str_radix(&token[i..i + 2], 16).ok())
            .collect();
        keep(bytes);
    }
    out
}

/// `text` with every secret in `secrets` hidden: each place it is written (however spaced or
/// cased) becomes [`REDACTED`], and a word that only encodes one is hidden whole; a text that
/// still holds one after that (percent-encoding across words) is hidden entirely.
pub(crate) fn redact(text: &str, secrets: &[&str]) -> String {
    let secrets: Vec<&str> = secrets.iter().copied().filter(|s| !s.is_empty()).collect();
    if !secrets.iter().any(|s| holds(text, s)) {
        return text.to_string();
    }
    let mut out = text.to_string();
    for s in &secrets {
        let key = key_of(s);
        if key.len() >= ANYWHERE {
            out = out.replace(s, REDACTED);
        }
        if key.len() < FLOOR {
            continue;
        }
        let spans = Skeleton::of(&out).find(&key);
        for (a, b) in spans.into_iter().rev() {
            out.replace_range(a..b, REDACTED);
        }
    }
    if secrets.iter().any(|s| holds(&out, s)) {
        out = out
            .split(' ')
            .map(|w| {
                if secrets.iter().any(|s| holds(w, s)) {
                    REDACTED
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    if secrets.iter().any(|s| holds(&out, s)) {
        return REDACTED.to_string();
    }
    out
}

/// `value` with [`redact`] applied to every string in it.
pub(crate) fn redact_value(value: &mut serde_json::Value, secrets: &[&str]) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            let r = redact(s, secrets);
            if r != *s {
                *s = r;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|v| redact_value(v, secrets)),
        Value::Object(o) => o.values_mut().for_each(|v| redact_value(v, secrets)),
        _ => {}
    }
}

/// What one scenario's run learned from sensitive inputs: the values the person gave and the
/// plan's own secret texts. Every string a scenario's result shows passes through it once,
/// where the result is folded for the reports ([`Taint::report`]) and where the console line
/// is made ([`Taint::text`]), so no output repeats a tainted value, whatever message,
/// did-you-mean, field content or recorded AX name carried it there.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct Taint(Vec<String>);

/// By hand: a taint must never print what it hides.
impl std::fmt::Debug for Taint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Taint({} values)", self.0.len())
    }
}

impl Taint {
    /// The distinct non-empty values among `values`.
    pub(crate) fn new<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Taint {
        let mut v: Vec<String> = values
            .into_iter()
            .map(Into::into)
            .filter(|s| !s.is_empty())
            .collect();
        v.sort();
        v.dedup();
        Taint(v)
    }

    /// Both taints' values.
    pub(crate) fn join(mut self, other: &Taint) -> Taint {
        self.0.extend(other.0.iter().cloned());
        Taint::new(self.0)
    }

    /// Whether nothing is tainted.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn refs(&self) -> Vec<&str> {
        self.0.iter().map(String::as_str).collect()
    }

    /// `text` with every tainted value hidden.
    pub(crate) fn text(&self, text: &str) -> String {
        if self.is_empty() {
            return text.to_string();
        }
        redact(text, &self.refs())
    }

    /// `value` with every tainted value hidden, in keys and strings alike, as JSON: a value
    /// that no longer reads back as a `T` (a tainted value was also an enum's word) is
    /// `None`, for the caller to replace with something that shows nothing.
    pub(crate) fn report<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        value: T,
    ) -> Option<T> {
        if self.is_empty() {
            return Some(value);
        }
        let mut v = serde_json::to_value(&value).ok()?;
        if !self.refs().iter().any(|s| holds_in(&v, s)) {
            return Some(value);
        }
        redact_keyed(&mut v, &self.refs());
        serde_json::from_value(v).ok()
    }
}

/// Whether any string or key in `v` holds `secret`.
fn holds_in(v: &serde_json::Value, secret: &str) -> bool {
    use serde_json::Value;
    match v {
        Value::String(s) => holds(s, secret),
        Value::Array(a) => a.iter().any(|x| holds_in(x, secret)),
        Value::Object(o) => o
            .iter()
            .any(|(k, x)| holds(k, secret) || holds_in(x, secret)),
        _ => false,
    }
}

/// [`redact_value`], keys included.
fn redact_keyed(value: &mut serde_json::Value, secrets: &[&str]) {
    match value {
        serde_json::Value::String(s) => *s = redact(s, secrets),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|v| redact_keyed(v, secrets)),
        serde_json::Value::Object(o) => {
            let old = std::mem::take(o);
            for (k, mut v) in old {
                redact_keyed(&mut v, secrets);
                o.insert(redact(&k, secrets), v);
            }
        }
        _ => {}
    }
}

/// `text` (JSON, possibly laid out badly) with every string token whose value is one of
/// `secrets` replaced by `"‹redacted›"`.
pub(crate) fn redact_json_text(text: &str, secrets: &[&str]) -> String {
    if secrets.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        out.push_str(&rest[..open]);
        let token_len = string_token_len(&rest[open..]);
        let token = &rest[open..open + token_len];
        match serde_json::from_str::<String>(token) {
            Ok(value) if secrets.contains(&value.as_str()) => {
                out.push('"');
                out.push_str(REDACTED);
                out.push('"');
            }
            _ => out.push_str(token),
        }
        rest = &rest[open + token_len..];
    }
    out.push_str(rest);
    out
}

/// The length of the string token at the start of `s` (which starts with `"`), closing
/// quote included; the whole of `s` when it never closes.
fn string_token_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn secrets_are_found_however_they_are_escaped() {
        let text =
            "{\"example\":  \"\\u0068unter2\", \"name\": \"hunter2 and more\", \"k\": \"a\\\"b\"}";
        let out = redact_json_text(text, &["hunter2"]);
        assert_eq!(
            out,
            "{\"example\":  \"‹redacted›\", \"name\": \"hunter2 and more\", \"k\": \"a\\\"b\"}"
        );
    }

    #[test]
    fn a_taint_hides_its_values_in_keys_and_strings_and_never_prints_them() {
        let taint = Taint::new(["zq-secret-771@example.com", "", "zq-secret-771@example.com"]);
        assert_eq!(format!("{taint:?}"), "Taint(1 values)");
        let v = serde_json::json!({"zq-secret-771@example.com": ["it holds zq-secret-771@example.com"]});
        let hidden = taint.report(v).unwrap();
        assert_eq!(
            hidden,
            serde_json::json!({"‹redacted›": ["it holds ‹redacted›"]})
        );
        assert_eq!(
            Taint::default().text("zq-secret-771@example.com"),
            "zq-secret-771@example.com"
        );
    }

    #[test]
    fn a_report_that_no_longer_reads_back_is_none() {
        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        enum Outcome {
            Completed,
        }
        assert!(
            Taint::new(["completed"])
                .report(Outcome::Completed)
                .is_none()
        );
    }

    #[test]
    fn an_unclosed_string_is_kept() {
        assert_eq!(redact_json_text("{\"a\": \"x", &["x"]), "{\"a\": \"x");
    }

    #[test]
    fn spelled_spaced_and_encoded_secrets_are_found() {
        let s = "correct horse";
        for text in [
            "it is c-o-r-r-e-c-t-h-o-r-s-e",
            "CORRECT  HORSE",
            "the password: correct_horse!",
            "https://x.test/?p=correct%20horse",
            "https://x.test/?p=correct+horse",
            "Y29ycmVjdCBob3JzZQ==",
            "636f727265637420686f727365",
        ] {
            assert!(holds(text, s), "{text}");
        }
        assert!(holds("the code is 4 3 2 1.", "4321"));
        assert!(holds("code=NDMyMQ", "4321"));
    }

    #[test]
    fn short_secrets_are_not_found_inside_other_words_or_numbers() {
        assert!(!holds("order 14321 shipped", "4321"));
        assert!(!holds("4321x", "4321"));
        assert!(holds("pin: 4321", "4321"));
        // Under the floor only the exact value counts.
        assert!(holds("go 42!", "42"));
        assert!(!holds("4 2", "42"));
        assert!(!holds("anything", ""));
    }

    #[test]
    fn redaction_hides_every_spelling() {
        let r = redact("it is c-o-r-r-e-c-t h-o-r-s-e, ok", &["correct horse"]);
        assert_eq!(r, "it is ‹redacted›, ok");
        let r = redact("the code is 4 3 2 1.", &["4321"]);
        assert_eq!(r, "the code is ‹redacted›.");
        let r = redact("see Y29ycmVjdCBob3JzZQ== now", &["correct horse"]);
        assert_eq!(r, "see ‹redacted› now");
        assert_eq!(redact("nothing here", &["4321"]), "nothing here");
    }

    proptest! {
        /// Any spacing, separator and case of a secret is found, and redacted away.
        #[test]
        fn any_spelling_is_found(
            secret in "[a-zA-Z0-9]{4,16}",
            seps in proptest::collection::vec("[ ._\\-/]{0,2}", 16),
            upper in any::<bool>(),
            prefix in "[a-z ]{0,8}",
        ) {
            let mut spelled = String::new();
            for (i, c) in secret.chars().enumerate() {
                if i > 0 {
                    spelled.push_str(&seps[i]);
                }
                spelled.push(if upper { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() });
            }
            let text = format!("{prefix} {spelled} .");
            prop_assert!(holds(&text, &secret), "{text}");
            prop_assert!(!holds(&redact(&text, &[&secret]), &secret));
        }

        /// Encoded the usual ways, it is found too.
        #[test]
        fn any_encoding_is_found(secret in "[ -~]{4,24}") {
            prop_assume!(key_of(&secret).len() >= FLOOR);
            use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
            let hex: String = secret.bytes().map(|b| format!("{b:02x}")).collect();
            let pct: String = secret.bytes().map(|b| format!("%{b:02X}")).collect();
            for text in [
                format!("q={}", STANDARD.encode(&secret)),
                format!("x {} y", URL_SAFE_NO_PAD.encode(&secret)),
                format!("h={hex}"),
                format!("https://evil.test/?d={pct}"),
            ] {
                prop_assert!(holds(&text, &secret), "{text}");
                prop_assert!(!holds(&redact(&text, &[&secret]), &secret), "{text}");
            }
        }

        /// Ordinary words are never taken for a short numeric secret they do not hold.
        #[test]
        fn ordinary_text_is_not_flagged(
            words in proptest::collection::vec("[a-z]{1,9}", 1..12),
            pin in "[0-9]{4,6}",
        ) {
            let text = words.join(" ");
            prop_assert!(!holds(&text, &pin), "{text}");
        }
    }
}
