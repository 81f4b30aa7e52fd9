//! [`Groups`]: lists of element indices laid out flat, one after another.
//!
//! The label table and the point grid both map a key to a list of elements. A vector per
//! key costs an allocation per key and scatters the lists over the heap; here the lists are
//! slices of one vector, filled by a counting sort, so building costs two allocations.

/// Lists of element indices, numbered `0..`, each in the order its members were given.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    /// List `g` is `members[starts[g]..starts[g + 1]]`.
    starts: Vec<u32>,
    members: Vec<u32>,
}

impl Groups {
    /// Lays out the lists: `sizes[g]` is how many `(g, member)` pairs `pairs` yields for
    /// list `g`.
    pub(crate) fn build(mut sizes: Vec<u32>, pairs: impl Iterator<Item = (u32, u32)>) -> Self {
        let mut starts = Vec::with_capacity(sizes.len() + 1);
        let mut at = 0u32;
        for s in &mut sizes {
            starts.push(at);
            at += *s;
            // From here on, `sizes` holds each list's fill cursor.
            *s = starts[starts.len() - 1];
        }
        starts.push(at);
        let mut members = vec![0; at as usize];
        for (g, m) in pairs {
            let cursor = &mut sizes[g as usize];
            members[*cursor as usize] = m;
            *cursor += 1;
        }
        Groups { starts, members }
    }

    /// List `g`.
    pub(crate) fn get(&self, g: u32) -> &[u32] {
        let g = g as usize;
        &self.members[self.starts[g] as usize..self.starts[g + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lays_lists_out_in_given_order() {
        let g = Groups::build(vec![2, 0, 1], [(0, 7), (2, 3), (0, 5)].into_iter());
        assert_eq!(g.get(0), &[7, 5]);
        assert!(g.get(1).is_empty());
        assert_eq!(g.get(2), &[3]);
    }
}
