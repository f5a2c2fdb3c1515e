#!/usr/bin/env bash
# Install the Debian packages wblab needs to build, test and plot.
# Idempotent: installs only what is missing. Needs root (or sudo) on a Debian machine.
set -euo pipefail
pkgs=(build-essential pkg-config libcmocka-dev gnuplot-nox libtracefs-dev libtracecmd-dev
      libtraceevent-dev libzstd-dev trace-cmd xfsprogs btrfs-progs e2fsprogs util-linux clang
      libclang-rt-14-dev libgsl-dev libjansson-dev chromium imagemagick poppler-utils libxml2-utils file parallel fdisk)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "setup: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
