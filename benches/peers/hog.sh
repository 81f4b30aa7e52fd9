# Sourced by the peer scripts: with HOG=N (default: one per core; HOG=0 for none), N busy loops
# run beside the timings until the script exits, so every ratio is taken on a loaded machine,
# as CI machines are. A ratio that holds only on a quiet machine is not one to quote.
hog_start() {
  local n="${HOG:-$(nproc)}" i
  HOG_PIDS=()
  for ((i = 0; i < n; i++)); do
    python3 -c 'while True: pass' &
    HOG_PIDS+=("$!")
  done
  trap 'kill "${HOG_PIDS[@]}" 2>/dev/null || true' EXIT
  echo "cpu hog: $n busy loop(s) beside the timings (HOG=$n)"
}
