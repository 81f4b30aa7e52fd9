//! The one integration test binary: a module per area, sharing the CLI runner in `util`.

mod diff;
mod replay;
mod util;
