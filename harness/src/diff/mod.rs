//! Before/after diffs: a pixelmatch 7.2.0-exact pixel diff, the changed regions and their
//! density, and (later) the AX tree diff.

pub mod pixel;
#[cfg(test)]
mod reference;
pub mod regions;
