//! The `stepreplay` binary: the library's command line, under an allocator that turns running
//! out of memory into a run error (exit 4 and an incomplete manifest), never an abort.

#[global_allocator]
static ALLOC: stepreplay::limits::LimitAlloc = stepreplay::limits::LimitAlloc;

fn main() -> std::process::ExitCode {
    stepreplay::cli::main()
}
