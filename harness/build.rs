//! Links the `stepreplay` binary as a position-dependent executable on Linux with glibc.
//!
//! `stepreplay diff` is one process per comparison, so start-up is part of every diff: a
//! position-independent build made the dynamic loader apply about 22,600 relocations, and
//! copy-on-write the ~450 KiB they touch, before `main`. Linked at a fixed address there are
//! none: 105 fewer page faults and about 0.3 ms less a process (measured with
//! `benches/peers/run.sh`). The cost is that the binary's own code does not move under ASLR; libraries, heap
//! and stack still do. Only binaries are linked this way, not the library or test programs.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
