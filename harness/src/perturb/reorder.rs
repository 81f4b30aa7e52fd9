//! `reorder-siblings`: every list of sibling elements is reversed (the AX tree's order is
//! not a contract; a resolver that depends on it is fragile). Pixels do not change.

use crate::recording::AxSnapshot;

fn reverse(list: &mut [crate::recording::Element]) {
    list.reverse();
    for e in list {
        reverse(&mut e.children);
    }
}

pub(super) fn apply(ax: &mut AxSnapshot) {
    for app in &mut ax.apps {
        for w in &mut app.windows {
            reverse(&mut w.elements);
        }
    }
}
