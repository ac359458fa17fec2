#!/bin/sh
# Installs what exsim needs from Debian's packages (only what is missing), then configures and
# builds it in build/. Safe to run again: a no-op when everything is in place.
#   scripts/setup.sh            # default preset (build/), everything
#   scripts/setup.sh exsim      # only the simulator
#   EXSIM_PRESET=asan scripts/setup.sh
set -eu
cd "$(dirname "$0")/.."

packages="cmake g++ make pkg-config libsimgrid-dev libfmt-dev nlohmann-json3-dev catch2
python3 python3-pytest python3-numpy python3-matplotlib python3-jsonschema python3-tqdm python3-thrift
python3-distributed"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing Debian packages:$missing"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "setup: need root (or sudo) to install:$missing" >&2; exit 1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

preset=${EXSIM_PRESET:-default}
cmake --preset "$preset" >/dev/null
if [ "$#" -gt 0 ]; then
  cmake --build --preset "$preset" -j "$(nproc)" --target "$@"
else
  cmake --build --preset "$preset" -j "$(nproc)"
fi
