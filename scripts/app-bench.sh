#!/usr/bin/env bash
# Startup and memory of the release app under Xvfb:
#  - cold start to first paint: from just before exec to the first frame on screen, as the UI
#    reports it (two animation frames after the shell is mounted; report_first_paint). Each run
#    is a new process with empty XDG data/config/cache directories (no WebKit caches); the
#    kernel's page cache is warm after the first run.
#  - the same for the smallest Tauri 2 window (bench/window: the same tauri, window size and
#    renderer settings, a static page), launched alternately with the app in the same run, and
#    the app's median over the window's: what Quire adds to what any Tauri window costs here.
#  - idle PSS of the whole process tree (the app, WebKitWebProcess, WebKitNetworkProcess, and
#    anything else it started), IDLE_SECONDS after the last run's first paint.
#
# Usage: scripts/app-bench.sh [RUNS]   (RUNS defaults to 5)
# Env: QUIRE_APP_BINARY (skip the build and measure this binary), IDLE_SECONDS (default 5),
#      BENCH_WINDOW_BINARY (the fixture window's binary; built when unset).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib-app.sh"
cd "$ROOT"

runs="${1:-5}"
idle="${IDLE_SECONDS:-5}"
timeout_s=30
if [[ -n "${QUIRE_APP_BINARY:-}" ]]; then
  app_bin="$QUIRE_APP_BINARY"
else
  app_build
  app_bin="$APP_BINARY"
fi
if [[ -n "${BENCH_WINDOW_BINARY:-}" ]]; then
  window_bin="$BENCH_WINDOW_BINARY"
else
  cargo build --quiet -p quire-bench-window --release --features custom-protocol
  window_bin="$ROOT/target/release/quire-bench-window"
fi
bin="$app_bin"

work="$(mktemp -d)"
app_pid=""
launch_ms=""
cpu_ms=""
navigation_ms=""
mounted_ms=""
cleanup() {
  if [[ -n "$app_pid" ]] && kill -0 "$app_pid" 2>/dev/null; then
    kill -TERM "$app_pid" 2>/dev/null || true
    wait "$app_pid" 2>/dev/null || true
  fi
  if [[ -n "${XVFB_PID:-}" ]]; then
    kill -TERM "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# A private X server on a display it picks; it prints the number once it accepts clients.
coproc XVFB { exec Xvfb -displayfd 1 -nolisten tcp -screen 0 1280x800x24 2>/dev/null; }
display=""
read -r -t "$timeout_s" display <&"${XVFB[0]}" || true
[[ -n "$display" ]] || { echo "Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$display" GDK_BACKEND=x11
# No session bus (as in CI): each launch is a first app, never handed to a Quire already running
# on this desktop's bus (one app per data directory, src-tauri/src/instance.rs).
unset WAYLAND_DISPLAY DBUS_SESSION_BUS_ADDRESS

# All descendants of a pid, itself included.
tree() {
  local child
  echo "$1"
  for child in $(ps -o pid= --ppid "$1"); do tree "$child"; done
}

now_us() { echo "${EPOCHREALTIME/./}"; }

# CPU time (user + system, ms) used so far by the live processes of a tree: a figure that,
# unlike wall time, hardly depends on what else the machine is running.
clk_tck="$(getconf CLK_TCK)"
tree_cpu_ms() {
  local pid ticks=0 stat
  for pid in $(tree "$1"); do
    stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || continue
    stat="${stat##*) }" # fields after "pid (comm) "; utime and stime are the 12th and 13th
    ticks=$((ticks + $(echo "$stat" | awk '{print $12 + $13}')))
  done
  echo $((ticks * 1000 / clk_tck))
}

# Launches the app and waits for its first-paint line; sets app_pid, launch_ms (exec to first
# paint), navigation_ms (exec to the page's navigation start: the native part of start-up),
# mounted_ms (exec to the shell rendered by the page's script) and cpu_ms (CPU time the process
# tree had used by then).
launch() {
  local home="$work/run$1" start deadline paint_ms
  mkdir -p "$home"/{data,config,cache,runtime}
  chmod 700 "$home/runtime"
  start="$(now_us)"
  XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" \
    XDG_RUNTIME_DIR="$home/runtime" "$bin" >/dev/null 2>"$home/stderr" &
  app_pid=$!
  deadline=$(($(now_us) + timeout_s * 1000000))
  until grep -qs 'first paint at' "$home/stderr"; do
    if ! kill -0 "$app_pid" 2>/dev/null; then
      echo "the app exited before its first paint:" >&2
      cat "$home/stderr" >&2
      exit 1
    fi
    if (($(now_us) > deadline)); then
      echo "no first paint within ${timeout_s}s:" >&2
      cat "$home/stderr" >&2
      exit 1
    fi
    sleep 0.005
  done
  cpu_ms="$(tree_cpu_ms "$app_pid")"
  paint_ms="$(sed -n 's/.*first paint at unix_ms=\([0-9]*\).*/\1/p' "$home/stderr")"
  navigation_ms="$(sed -n 's/.*navigation started at unix_ms=\([0-9]*\).*/\1/p' "$home/stderr")"
  mounted_ms="$(sed -n 's/.*shell mounted at unix_ms=\([0-9]*\).*/\1/p' "$home/stderr")"
  echo "run $1: exec to navigation start $((navigation_ms - start / 1000)) ms, to the shell" \
    "mounted $((mounted_ms - start / 1000)) ms, to the first paint $((paint_ms - start / 1000)) ms" >&2
  launch_ms=$((paint_ms - start / 1000))
  navigation_ms=$((navigation_ms - start / 1000))
  mounted_ms=$((mounted_ms - start / 1000))
}

stop_app() {
  kill -TERM "$app_pid"
  wait "$app_pid" 2>/dev/null || true
  app_pid=""
}

median() {
  printf '%s\n' "$@" | sort -n |
    awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'
}

times=()
navigations=()
mounts=()
cpus=()
window_times=()
window_navigations=()
window_cpus=()
for ((i = 1; i <= runs; i++)); do
  # The fixture window first, then the app: alternated, so both see the same machine.
  bin="$window_bin"
  launch "w$i"
  window_times+=("$launch_ms")
  window_navigations+=("$navigation_ms")
  window_cpus+=("$cpu_ms")
  stop_app
  bin="$app_bin"
  launch "$i"
  times+=("$launch_ms")
  navigations+=("$navigation_ms")
  mounts+=("$mounted_ms")
  cpus+=("$cpu_ms")
  ((i == runs)) || stop_app
done
app_median="$(median "${times[@]}")"
window_median="$(median "${window_times[@]}")"
echo "cold start to first paint: median ${app_median} ms over ${runs} runs" \
  "(runs: ${times[*]}; of which exec to page navigation start: median" \
  "$(median "${navigations[@]}") ms, to the shell mounted: median $(median "${mounts[@]}") ms;" \
  "load average: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "CPU time of the process tree at first paint: median $(median "${cpus[@]}") ms (runs: ${cpus[*]})"
echo "the smallest Tauri window (bench/window), alternated with the app: median ${window_median} ms" \
  "(runs: ${window_times[*]}; exec to page navigation start: median" \
  "$(median "${window_navigations[@]}") ms; CPU median $(median "${window_cpus[@]}") ms);" \
  "the app's first paint is $(awk -v a="$app_median" -v w="$window_median" 'BEGIN {printf "%.2f", a / w}')x the window's"

# Idle memory of the last run's process tree.
sleep "$idle" # the idle period being measured, not a wait for readiness
total=0
breakdown=""
for pid in $(tree "$app_pid"); do
  pss="$(awk '/^Pss:/ {print $2}' "/proc/$pid/smaps_rollup" 2>/dev/null || true)"
  [[ -n "$pss" ]] || continue
  total=$((total + pss))
  breakdown+="$(cat "/proc/$pid/comm") $((pss / 1024)) MiB, "
done
echo "idle PSS of the process tree after ${idle}s: $((total / 1024)) MiB (${breakdown%, })"
