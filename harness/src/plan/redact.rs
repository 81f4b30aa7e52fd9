//! Hiding sensitive values in plan text before a person sees it (a `fmt --check` diff).
//!
//! A sensitive input must never carry an `example` (`check` says so), but when one does, no
//! output may repeat it. Redaction works on JSON string tokens, decoded, so a value is found
//! however the file escapes it (`\u0068unter2` is still `hunter2`).

use super::foxstep::FoxPlan;

/// What a hidden value is shown as.
pub const REDACTED: &str = "‹redacted›";

/// The values a plan must never show: the examples of its sensitive inputs.
pub fn sensitive_values(fox: &FoxPlan) -> Vec<&str> {
    fox.inputs
        .iter()
        .filter(|i| i.sensitive)
        .filter_map(|i| i.example.as_deref())
        .filter(|e| !e.is_empty())
        .collect()
}

/// `text` (JSON, possibly laid out badly) with every string token whose value is one of
/// `secrets` replaced by `"‹redacted›"`.
pub fn redact_json_text(text: &str, secrets: &[&str]) -> String {
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
    fn an_unclosed_string_is_kept() {
        assert_eq!(redact_json_text("{\"a\": \"x", &["x"]), "{\"a\": \"x");
    }
}
