#!/bin/sh
# Installs what exsim needs from Debian's packages (only what is missing), then configures and
# builds it in build/. Safe to run again, and silent when everything is in place. Otherwise it
# says on stderr what it does: the packages it installs, configuring, the build's progress.
#   scripts/setup.sh            # default preset (build/), everything, with the test packages
#   scripts/setup.sh exsim      # only the simulator
#   EXSIM_PRESET=asan scripts/setup.sh
set -eu
cd "$(dirname "$0")/.."

say() { echo "setup: $*" >&2; }

preset=${EXSIM_PRESET:-default}
build_dir=build
[ "$preset" = default ] || build_dir="build-$preset"
# True when the programs asked for (default: all of them) exist and no C++ source, header or CMake
# file is newer than any of them: nothing of theirs to build.
up_to_date() {
  if [ "$#" -eq 0 ]; then set -- exsim exsim_event_heap exsim_unit_tests exsim_sim_tests; fi
  for target in "$@"; do
    bin="$build_dir/$target"
    [ -x "$bin" ] || bin="$build_dir/tests/$target"
    [ -x "$bin" ] || return 1
    newer=$(find CMakeLists.txt CMakePresets.json cli sim models input output bench tests \
      \( -name '*.cpp' -o -name '*.hpp' -o -name CMakeLists.txt -o -name CMakePresets.json \) -newer "$bin" \
      -print 2>/dev/null | head -n 1)
    [ -z "$newer" ] || return 1
  done
}

# Two runs at once (two terminals, a test run and an edit loop) would install and compile into the
# same folder: the second waits for the first, unless what it needs is already built (another
# build's lock is no reason to wait then). The lock goes with the process, even on kill -9.
mkdir -p "$build_dir"
if command -v flock >/dev/null; then
  exec 9>"$build_dir/.setup.lock"
  if ! flock -n 9; then
    if up_to_date "$@"; then
      say "another scripts/setup.sh is building in $build_dir/; ${*:-everything} is up to date, not waiting for it"
      exit 0
    fi
    say "another scripts/setup.sh is building in $build_dir/; waiting for it"
    flock 9
  fi
fi

packages="cmake g++ make pkg-config libsimgrid-dev libfmt-dev nlohmann-json3-dev catch2
python3 python3-pytest python3-numpy python3-matplotlib python3-jsonschema python3-tqdm python3-thrift
python3-distributed"
# The tests also render the sweep report in headless Chromium (about 130 packages, under a minute
# to install here); building only some targets (scripts/setup.sh exsim) does not need it.
if [ "$#" -eq 0 ]; then packages="$packages chromium"; fi
# The row-counting tool (tools/rowcount) and its tests run DuckDB from the npm registry on Node.js;
# a machine that already has node and npm (from any source) keeps them.
if [ "$#" -eq 0 ] && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then
  packages="$packages nodejs npm"
fi

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  say "installing Debian packages (first run only, a minute or two):$missing"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    say "need root (or sudo) to install:$missing"; exit 1
  fi
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
  say "packages installed"
fi

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  say "configuring $build_dir/ (cmake --preset $preset)"
  cmake --preset "$preset" >/dev/null
fi

# The build, shown compactly: a line per file compiled or program linked with cmake's progress
# (one line rewritten in place on a terminal); compiler messages in full; nothing when nothing
# was out of date.
status=$(mktemp)
trap 'rm -f "$status"' EXIT
jobs=$(nproc)
awk="awk"  # mawk (Debian's awk) reads a pipe in blocks unless interactive: the lines would come at the end
if awk -W version 2>/dev/null | grep -q mawk; then awk="awk -W interactive"; fi
tty=0
if [ -t 2 ]; then tty=1; fi
start=$(date +%s)
built=0 # 3 when something was compiled or linked
{
  if [ "$#" -gt 0 ]; then
    cmake --build --preset "$preset" -j "$jobs" --target "$@" 2>&1 && echo 0 >"$status" || echo $? >"$status"
  else
    cmake --build --preset "$preset" -j "$jobs" 2>&1 && echo 0 >"$status" || echo $? >"$status"
  fi
} | $awk -v tty="$tty" -v dir="$build_dir" -v jobs="$jobs" '
  function note(text) {
    if (!started) {
      started = 1
      print "setup: building in " dir "/ with " jobs " job(s); the first build takes a few minutes, later ones only rebuild what changed" > "/dev/stderr"
    }
    if (tty) { printf "\rsetup: %s\033[K", text > "/dev/stderr"; pending = 1 }
    else print "setup: " text > "/dev/stderr"
    fflush("/dev/stderr")
  }
  function flush() { if (pending) { printf "\n" > "/dev/stderr"; pending = 0 } }
  /^\[ *[0-9]+%\] Building / {
    pct = substr($0, 1, index($0, "]")); src = $NF
    sub(/^.*\.dir\//, "", src); sub(/\.o$/, "", src)
    note(pct " compiling " src); next
  }
  /^\[ *[0-9]+%\] Linking / { note(substr($0, 1, index($0, "]")) " linking " $NF); next }
  /Built target |^Consolidate compiler generated dependencies|^-- (Configuring|Generating) done|^-- Build files have been written/ { next }
  /^(gmake|make)(\[[0-9]+\])?: (Entering|Leaving) directory/ { next }
  { flush(); print > "/dev/stderr"; fflush("/dev/stderr") }
  END { flush(); exit started ? 3 : 0 }' || built=$?
rc=$(cat "$status")
if [ "$rc" -ne 0 ]; then
  say "the build failed (cmake exit status $rc); the compiler's messages are above"
  exit "$rc"
fi
if [ "$built" -eq 3 ]; then say "built in $(($(date +%s) - start)) s"; fi
