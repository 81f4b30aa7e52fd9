//! The one integration test binary: a module per area, all running the built CLI.

mod check;
mod readme;
mod util;
