//! Target resolution: finding on the current frame what a step's target refers to.

pub mod crop;
