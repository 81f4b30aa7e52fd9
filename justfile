# Everyday tasks. Each recipe is also a plain cargo command (see README.md).

# List the recipes.
default:
    @just --list

# Run the checked-in scenario suite (the main job).
run *ARGS:
    cargo run --release -- run {{ARGS}}

# Run every test, none skipped (installs the Debian packages the tests drive when missing).
test:
    bash scripts/test

# Review changed insta snapshots.
snap:
    cargo insta review

# Run the criterion benches.
bench:
    cargo bench -p stepreplay-benches

# Format the code.
fmt:
    cargo fmt --all

# Lint with clippy, warnings as errors.
lint:
    cargo clippy --workspace --all-targets -- -D warnings

# Build the API docs.
doc:
    cargo doc --workspace --no-deps

# What CI runs.
ci:
    bash .ci/run

# A longer property-test campaign over every parser (CASES per parser; CI runs 64).
fuzz CASES="5000":
    FUZZ_CASES={{CASES}} cargo test -p stepreplay --test integration -- fuzz::
