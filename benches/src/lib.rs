//! Inputs for the stepreplay benches: screens that look like real desktops, built once outside
//! the timed loops, and the peer-comparison helper binary (`src/bin/diff-peer.rs`).

pub mod crops;
pub mod desktop;
