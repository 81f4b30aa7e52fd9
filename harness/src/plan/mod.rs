//! Plans: dialects in, the normalized [`Plan`] out; strict parsing, canonical bytes and the
//! pre-approval lint (`check`).

pub mod check;
pub mod devthink;
mod fill;
pub mod foxstep;
pub(crate) mod keys;
mod load;
pub(crate) mod lower;
mod model;
mod redact;

pub(crate) use fill::{fill_known, selected_all_before};
pub use load::{Handed, SKILL_PLAN, parse_foxstep, parse_handed};
pub use load::{
    is_plan, is_plan_file, load_plan, no_plans_under, plan_files_under, plan_from_source,
    read_plan_source, read_plan_source_capped,
};
pub use lower::lower_foxstep;
pub use model::*;
pub use redact::sensitive_values;
