//! The step-kind vocabulary protocolv2 implies, each kind's risk class and the option
//! families bound to it. The schema freezes `kind` as a string of "the immutable vocabulary"
//! without listing it; this table is the harness's reading of the seed, written down in
//! `docs/devthink.md` (keep the two in step).

use super::model::Risk;

/// A step kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Navigate,
    Click,
    Type,
    Key,
    Select,
    Scroll,
    Submit,
    Wait,
    Extract,
    Capture,
    CaptureSession,
    RegionOcr,
    Transport,
    Channel,
}

/// Every kind with its wire word, in the order the docs list them.
pub(crate) const KINDS: &[(&str, Kind)] = &[
    ("navigate", Kind::Navigate),
    ("click", Kind::Click),
    ("type", Kind::Type),
    ("key", Kind::Key),
    ("select", Kind::Select),
    ("scroll", Kind::Scroll),
    ("submit", Kind::Submit),
    ("wait", Kind::Wait),
    ("extract", Kind::Extract),
    ("capture", Kind::Capture),
    ("capturesession", Kind::CaptureSession),
    ("regionocr", Kind::RegionOcr),
    ("transport", Kind::Transport),
    ("channel", Kind::Channel),
];

/// Option families only some kinds may carry, with those kinds. A family not listed here
/// (`correlation`, `naming`, `pair`, `diff`) fits any step. Each binding is the seed's own
/// wording: "the key modifiers of key steps", "the snapshot plan of a capturesession step".
pub(crate) const BOUND_FAMILIES: &[(&str, &[Kind])] = &[
    ("modifiers", &[Kind::Key]),
    ("pipeline", &[Kind::Extract]),
    ("pollrequest", &[Kind::Transport]),
    ("graphql", &[Kind::Channel]),
    ("vision", &[Kind::Capture]),
    ("ocrregion", &[Kind::RegionOcr]),
    ("snapshot", &[Kind::CaptureSession]),
    // "Recognition on the stored capture bytes": only capture steps store bytes.
    ("ocr", &[Kind::Capture, Kind::CaptureSession]),
    // "The element reference the page bridge resolves": kinds that address an element.
    (
        "targetref",
        &[
            Kind::Click,
            Kind::Type,
            Kind::Key,
            Kind::Select,
            Kind::Scroll,
            Kind::Submit,
            Kind::Wait,
            Kind::Extract,
            Kind::Capture,
            Kind::RegionOcr,
        ],
    ),
];

impl Kind {
    /// The kind a wire word names, if any.
    pub(crate) fn parse(word: &str) -> Option<Kind> {
        KINDS.iter().find(|(w, _)| *w == word).map(|&(_, k)| k)
    }

    /// The kind's wire word.
    pub(crate) fn word(self) -> &'static str {
        KINDS
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("", |&(w, _)| w)
    }

    /// The lowest risk a step of this kind may declare.
    pub(crate) fn risk_class(self) -> Risk {
        match self {
            // Reads the page or waits on it; nothing the page or a server sees changes.
            Kind::Wait | Kind::Extract | Kind::Capture | Kind::RegionOcr => Risk::Read,
            // Input events the page observes and may act on.
            Kind::Navigate | Kind::Click | Kind::Type | Kind::Key | Kind::Select | Kind::Scroll => {
                Risk::Interaction
            }
            // Sends a form, talks to servers outside the page's own traffic, or copies the
            // session (cookies, storage: the user's credentials).
            Kind::Submit | Kind::Transport | Kind::Channel | Kind::CaptureSession => {
                Risk::Sensitive
            }
        }
    }

    /// Whether a step of this kind may carry option family `family`.
    pub(crate) fn allows(self, family: &str) -> bool {
        BOUND_FAMILIES
            .iter()
            .find(|(f, _)| *f == family)
            .is_none_or(|(_, kinds)| kinds.contains(&self))
    }
}

/// The kinds as a hint lists them.
pub(crate) fn kind_list() -> String {
    KINDS.iter().map(|(w, _)| *w).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_classes_order() {
        for &(w, k) in KINDS {
            assert_eq!(Kind::parse(w), Some(k));
            assert_eq!(k.word(), w);
        }
        assert_eq!(Kind::parse("Click"), None, "words are lowercase");
        assert!(Risk::Read < Risk::Interaction && Risk::Interaction < Risk::Sensitive);
    }

    #[test]
    fn bound_families_fit_only_their_kinds() {
        assert!(Kind::Key.allows("modifiers"));
        assert!(!Kind::Click.allows("modifiers"));
        assert!(!Kind::Navigate.allows("targetref"));
        assert!(
            Kind::Navigate.allows("pair"),
            "unbound families fit any kind"
        );
    }
}
