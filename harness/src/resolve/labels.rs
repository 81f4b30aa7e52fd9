//! [`LabelTable`]: every element's normalized name, and the elements grouped by it.
//!
//! Built for speed on large snapshots: the normalized names are written back to back into
//! one string (no allocation per element), and the groups are laid out flat ([`Groups`]),
//! keyed by the name's hash, so a lookup is one probe and a slice. A hash
//! collision merges two groups; lookups compare the names, so it can only cost time.

use std::collections::HashMap;

use super::groups::Groups;
use super::hash::{FastState, hash_ascii_lowercase, hash_str};
use crate::text::{normalize_label, push_normalized_ascii};

/// Normalized names of a frame's elements (by element index), grouped by name.
#[derive(Debug, Default)]
pub(crate) struct LabelTable {
    /// All normalized names, back to back.
    text: String,
    /// Element `i`'s name is `text[spans[i].0..spans[i].1]`.
    spans: Vec<(u32, u32)>,
    /// Name hash → group.
    by_hash: HashMap<u64, u32, FastState>,
    /// Group `g`'s elements, in tree order.
    groups: Groups,
}

/// A [`LabelTable`] being filled, element by element. The index pushes each window's names
/// right after deriving them, while the snapshot's strings are still in cache: a second pass
/// over 10k elements' strings once the tree walk is done misses the cache on nearly every
/// name.
#[derive(Debug)]
pub(crate) struct LabelBuilder {
    table: LabelTable,
    /// The names so far, as bytes: appending lowercased ASCII to a `Vec<u8>` is a plain
    /// loop, while a `String` checks each char. Checked as UTF-8 once, at the end.
    text: Vec<u8>,
    /// Group of each element (u32::MAX: no name).
    group_of: Vec<u32>,
    /// Each group's size.
    sizes: Vec<u32>,
}

impl LabelBuilder {
    /// An empty table with room for about `n` elements.
    pub(crate) fn with_capacity(n: usize) -> Self {
        LabelBuilder {
            table: LabelTable {
                spans: Vec::with_capacity(n),
                by_hash: HashMap::with_capacity_and_hasher(n / 2, FastState::default()),
                ..LabelTable::default()
            },
            text: Vec::with_capacity(n * 12),
            group_of: Vec::with_capacity(n),
            sizes: Vec::new(),
        }
    }

    /// Normalizes the name of the next element (numbered from 0, in order).
    pub(crate) fn push(&mut self, name: Option<&str>) {
        let t = &mut self.table;
        let start = self.text.len();
        let hash = name.and_then(|name| push_normalized(name, &mut self.text));
        t.spans.push((start as u32, self.text.len() as u32));
        let norm = &self.text[start..];
        if norm.is_empty() {
            self.group_of.push(u32::MAX);
            return;
        }
        let next = self.sizes.len() as u32;
        let hash = hash.unwrap_or_else(|| hash_str(norm));
        let g = *t.by_hash.entry(hash).or_insert(next);
        if g == next {
            self.sizes.push(0);
        }
        self.sizes[g as usize] += 1;
        self.group_of.push(g);
    }

    /// Gives the next element the name of element `j` (already pushed): a field named
    /// after the text beside it shares that text's normalized name and group, without
    /// normalizing or hashing it again.
    pub(crate) fn push_same_as(&mut self, j: u32) {
        let t = &mut self.table;
        t.spans.push(t.spans[j as usize]);
        let g = self.group_of[j as usize];
        if g != u32::MAX {
            self.sizes[g as usize] += 1;
        }
        self.group_of.push(g);
    }

    /// Groups the names pushed so far.
    pub(crate) fn finish(self) -> LabelTable {
        let LabelBuilder {
            mut table,
            text,
            group_of,
            sizes,
        } = self;
        table.text = String::from_utf8(text).expect("normalized names are whole UTF-8 strings");
        let mut groups = Groups::filling(sizes);
        for (i, &g) in group_of.iter().enumerate() {
            if g != u32::MAX {
                groups.put(g, i as u32);
            }
        }
        table.groups = groups.finish();
        table
    }
}

impl LabelTable {
    /// Normalizes and groups the names of elements `0..`, in order.
    #[cfg(test)]
    pub(crate) fn build<'n>(names: impl ExactSizeIterator<Item = Option<&'n str>>) -> Self {
        let mut b = LabelBuilder::with_capacity(names.len());
        names.for_each(|name| b.push(name));
        b.finish()
    }

    /// Element `i`'s normalized name ("" when it has none).
    pub(crate) fn norm(&self, i: u32) -> &str {
        let (a, b) = self.spans[i as usize];
        &self.text[a as usize..b as usize]
    }

    /// Elements whose normalized name is `norm`, in tree order.
    pub(crate) fn with<'t>(&'t self, norm: &'t str) -> impl Iterator<Item = u32> + 't {
        let slice = match self.by_hash.get(&hash_str(norm)) {
            Some(&g) => self.groups.get(g),
            None => &[],
        };
        slice.iter().copied().filter(move |&i| self.norm(i) == norm)
    }
}

/// Appends the bytes of `normalize_label(s)` to `out`, and returns the hash of what it appended
/// ([`hash_str`]) when it could compute it on the way.
///
/// Most labels are ASCII; for them the folding is done here, without the intermediate
/// string (the result is the same: no ASCII character is a curly quote or an ellipsis, ASCII
/// lowercasing is Unicode lowercasing there, and leading or trailing whitespace never emits
/// a space). Most of those have nothing but single spaces between words, so normalizing is
/// lowercasing: a lowercased copy, hashed from the source (hashing the copy just written
/// would stall on store forwarding). Anything else goes through
/// [`normalize_label`] itself.
pub(crate) fn push_normalized(s: &str, out: &mut Vec<u8>) -> Option<u64> {
    if !s.is_ascii() {
        out.extend_from_slice(normalize_label(s).as_bytes());
        return None;
    }
    let b = s.as_bytes();
    let plain = b.first().is_some_and(|&c| c != b' ') && b.last() != Some(&b' ') && {
        let mut after_space = false;
        b.iter().all(|&c| {
            // `char::is_whitespace` on ASCII: tab … carriage return (including vertical
            // tab), space.
            let odd = matches!(c, b'\t'..=b'\r') || (c == b' ' && after_space);
            after_space = c == b' ';
            !odd
        })
    };
    if plain {
        // Lowercased on the way in: lowercasing the copy after a `memcpy` reads back bytes
        // it has just stored in overlapping pieces, and stalls on store forwarding.
        out.extend(b.iter().map(u8::to_ascii_lowercase));
        return Some(hash_ascii_lowercase(s));
    }
    push_normalized_ascii(b, out);
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fast(s: &str) -> String {
        let mut out = b"prefix ".to_vec();
        let hash = push_normalized(s, &mut out);
        let norm = String::from_utf8(out["prefix ".len()..].to_vec()).expect("UTF-8");
        if let Some(h) = hash {
            assert_eq!(h, hash_str(&norm), "{s:?}");
        }
        norm
    }

    #[test]
    fn fast_normalization_equals_normalize_label() {
        let fixed = [
            "",
            " ",
            "  Save  As…",
            "Save As...",
            "Don’t\tSave",
            "“Send”",
            "\x0bA\x0cB\x1cC ",
            "\r\nOK\r\n",
            "ÄBC  déf",
            "A\u{00A0}B",
            "İstanbul",
            "a\u{2007}\u{2007}b",
            "MiXeD 12",
        ];
        for s in fixed {
            assert_eq!(fast(s), normalize_label(s), "{s:?}");
        }
        // Pseudo-random strings over an alphabet with every kind of character the folding
        // treats specially (fixed seed: the same cases every run).
        let alphabet: Vec<char> = " \t\x0b\x0c\r\n\x1c\x1faAzZ09.…‘’“”\u{00A0}\u{202F}ÉßİΣ"
            .chars()
            .collect();
        let mut seed = 0x9e37_79b9_u64;
        for _ in 0..5000 {
            let mut s = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 12) as usize;
            for k in 0..len {
                let r = seed.rotate_left(k as u32 * 5) >> 3;
                // Mostly ASCII, so the fast path is exercised as much as the fallback.
                let pool = if r.is_multiple_of(4) {
                    alphabet.len()
                } else {
                    13
                };
                s.push(alphabet[(r as usize / 4) % pool]);
            }
            assert_eq!(fast(&s), normalize_label(&s), "{s:?}");
        }
    }

    #[test]
    fn groups_names_in_tree_order_and_keeps_spans() {
        let names = [
            Some("Delete"),
            None,
            Some("  delete "),
            Some("Open"),
            Some("   "),
        ];
        let t = LabelTable::build(names.into_iter());
        assert_eq!(t.with("delete").collect::<Vec<_>>(), vec![0, 2]);
        assert_eq!(t.with("open").collect::<Vec<_>>(), vec![3]);
        assert_eq!(t.with("Open").count(), 0);
        assert_eq!(t.with("").count(), 0);
        assert_eq!(t.norm(1), "");
        assert_eq!(t.norm(2), "delete");
        assert_eq!(t.norm(4), "");
    }

    #[test]
    fn a_shared_name_joins_the_group_of_the_element_it_came_from() {
        let mut b = LabelBuilder::with_capacity(4);
        b.push(Some("Name:"));
        b.push(None);
        b.push_same_as(0);
        b.push_same_as(1);
        b.push(Some("name:"));
        let t = b.finish();
        assert_eq!(t.with("name:").collect::<Vec<_>>(), vec![0, 2, 4]);
        assert_eq!(t.norm(2), "name:");
        assert_eq!(t.norm(3), "");
    }
}
