//! [`Groups`]: lists of element indices laid out flat, one after another.
//!
//! The label table and the point grid both map a key to a list of elements. A vector per
//! key costs an allocation per key and scatters the lists over the heap; here the lists are
//! slices of one vector, filled by a counting sort ([`Groups::filling`]), so building costs
//! two allocations.

/// Lists of element indices, numbered `0..`, each in the order its members were given.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    /// List `g` is `members[starts[g]..starts[g + 1]]`.
    starts: Vec<u32>,
    members: Vec<u32>,
}

/// [`Groups`] being filled: every list's place is known, members go in one by one.
#[derive(Debug)]
pub(crate) struct Filling {
    groups: Groups,
    /// Where list `g`'s next member goes.
    cursors: Vec<u32>,
}

impl Filling {
    /// Adds `m` to the end of list `g`; list `g` must have room left (its size).
    #[inline]
    pub(crate) fn put(&mut self, g: u32, m: u32) {
        let cursor = &mut self.cursors[g as usize];
        self.groups.members[*cursor as usize] = m;
        *cursor += 1;
    }

    /// The lists, as filled.
    pub(crate) fn finish(self) -> Groups {
        self.groups
    }
}

impl Groups {
    /// Lays out empty lists of `sizes[g]` members each, to be filled in order.
    pub(crate) fn filling(mut sizes: Vec<u32>) -> Filling {
        let mut starts = Vec::with_capacity(sizes.len() + 1);
        let mut at = 0u32;
        for s in &mut sizes {
            starts.push(at);
            at += *s;
            // From here on, `sizes` holds each list's fill cursor.
            *s = starts[starts.len() - 1];
        }
        starts.push(at);
        Filling {
            groups: Groups {
                starts,
                members: vec![0; at as usize],
            },
            cursors: sizes,
        }
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
        let mut f = Groups::filling(vec![2, 0, 1]);
        [(0, 7), (2, 3), (0, 5)]
            .into_iter()
            .for_each(|(g, m)| f.put(g, m));
        let g = f.finish();
        assert_eq!(g.get(0), &[7, 5]);
        assert!(g.get(1).is_empty());
        assert_eq!(g.get(2), &[3]);
    }
}
