//! The one integration test binary: a module per area, sharing the CLI runner in `util`.

mod agent;
mod agent_faults;
mod agent_schema;
mod bridge;
mod bridge_schema;
mod check;
mod cli;
mod devthink;
mod diff;
mod evidence;
mod faults;
mod front_doors;
mod fuzz;
mod gate;
mod guide_loop;
mod hardening;
mod import_whole;
mod layers;
#[cfg(target_os = "linux")]
mod limits;
mod macapptree;
mod mutate;
mod readme;
mod real;
#[cfg(target_os = "linux")]
mod record;
mod replay;
mod schema;
mod secrets_in_outputs;
mod secrets_in_pixels;
mod seed_points;
mod shipping;
mod standalone;
mod synth;
mod util;
mod writers;
