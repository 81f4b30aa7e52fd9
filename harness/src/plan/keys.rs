//! Key chords as plans write them — `⌘A`, `Cmd+A`, `Ctrl-Shift-Tab`, `⌥⇧Return` — read into
//! one form, so that two spellings of the same shortcut compare equal and the follower can
//! tell what a `press` step does.

use std::collections::BTreeSet;

/// A modifier key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Modifier {
    /// ⌘, Cmd, Command, Meta, Super.
    Command,
    /// ⌃, Ctrl, Control.
    Control,
    /// ⌥, Alt, Option.
    Option,
    /// ⇧, Shift.
    Shift,
}

/// A shortcut: held modifiers and one key, its name lowercased (`a`, `return`, `tab`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Chord {
    /// Held modifiers.
    pub(crate) modifiers: BTreeSet<Modifier>,
    /// The key pressed.
    pub(crate) key: String,
}

fn modifier_word(w: &str) -> Option<Modifier> {
    Some(match w.to_lowercase().as_str() {
        "cmd" | "command" | "meta" | "super" | "win" => Modifier::Command,
        "ctrl" | "control" | "ctl" => Modifier::Control,
        "alt" | "option" | "opt" => Modifier::Option,
        "shift" => Modifier::Shift,
        _ => return None,
    })
}

fn modifier_symbol(c: char) -> Option<Modifier> {
    Some(match c {
        '⌘' => Modifier::Command,
        '⌃' => Modifier::Control,
        '⌥' => Modifier::Option,
        '⇧' => Modifier::Shift,
        _ => return None,
    })
}

/// A modifier as plans name it, in a word (`Cmd`, `control`) or a symbol (`⌘`).
pub(crate) fn parse_modifier(s: &str) -> Option<Modifier> {
    let mut chars = s.trim().chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => modifier_symbol(c),
        _ => modifier_word(s.trim()),
    }
}

/// Key names that mean the same key.
fn key_name(k: &str) -> String {
    let k = k.to_lowercase();
    match k.as_str() {
        "enter" | "↩" | "⏎" => "return".into(),
        "esc" | "⎋" => "escape".into(),
        "⇥" => "tab".into(),
        "space" | "spacebar" | "␣" => "space".into(),
        "del" | "⌫" => "backspace".into(),
        _ => k,
    }
}

/// Reads a chord; `None` when there is no key in it (only modifiers, or nothing).
pub(crate) fn parse_chord(s: &str) -> Option<Chord> {
    let mut modifiers = BTreeSet::new();
    // Symbols anywhere: ⌘⇧A, Shift+⌘S.
    let rest: String = s
        .chars()
        .filter(|&c| match modifier_symbol(c) {
            Some(m) => {
                modifiers.insert(m);
                false
            }
            None => true,
        })
        .collect();
    let rest = rest.trim().trim_start_matches('+').trim();
    // Words joined by +, - or spaces: Ctrl+Shift+Tab. A lone "-" or "+" is the key itself.
    let parts: Vec<&str> = if rest.chars().count() == 1 {
        vec![rest]
    } else {
        rest.split(['+', '-', ' '])
            .filter(|p| !p.is_empty())
            .collect()
    };
    let (last, held) = parts.split_last()?;
    for w in held {
        modifiers.insert(modifier_word(w)?);
    }
    if modifier_word(last).is_some() {
        return None;
    }
    Some(Chord {
        modifiers,
        key: key_name(last),
    })
}

/// Whether `keys` selects everything in the focused field: ⌘A on a Mac, Ctrl+A elsewhere.
pub(crate) fn selects_all(keys: &str) -> bool {
    parse_chord(keys).is_some_and(|c| {
        c.key == "a"
            && (c.modifiers == BTreeSet::from([Modifier::Command])
                || c.modifiers == BTreeSet::from([Modifier::Control]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_shortcut_read_the_same() {
        let want = parse_chord("⌘⇧S").unwrap();
        for s in [
            "Cmd+Shift+S",
            "command-shift-s",
            "Shift+⌘S",
            "⌘ ⇧ s",
            "Meta+Shift+S",
        ] {
            assert_eq!(parse_chord(s).as_ref(), Some(&want), "{s}");
        }
        assert_eq!(parse_chord("Enter").unwrap().key, "return");
        assert_eq!(parse_chord("-").unwrap().key, "-");
        assert_eq!(parse_chord("Shift"), None);
        assert_eq!(parse_chord("Hyper+A"), None);
    }

    #[test]
    fn select_all_is_command_or_control_a_alone() {
        for s in ["⌘A", "Cmd+A", "ctrl+a", "Control-A", "⌃A"] {
            assert!(selects_all(s), "{s}");
        }
        for s in ["A", "⌘⇧A", "Alt+A", "Ctrl+Shift+A", "⌘S", "Tab"] {
            assert!(!selects_all(s), "{s}");
        }
    }
}
