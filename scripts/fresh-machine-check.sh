#!/usr/bin/env bash
# What a new user sees: a minimal Debian 12 root (debootstrap --variant=minbase) with only
# git and make added, a clone of the repository, then `make test` and `make demo` under
# chroot. scripts/install-deps.sh must bring in everything else.
#
# Usage (as root): scripts/fresh-machine-check.sh [options] [REPO]
#   REPO             a repository path or URL to clone (default: this repository)
#   --ref REF        the commit, branch or tag to check out (default: HEAD of REPO)
#   --dir DIR        where to create the root (default: /var/tmp); a new directory
#                    tensorir-fresh.XXXXXX is made in it for every run
#   --mirror URL     the Debian mirror (default: the URIs: line of
#                    /etc/apt/sources.list.d/debian.sources)
#   --keep           keep the root afterwards (for debugging); it is unmounted either way
#   --only-test      run `make test` only; --only-demo: `make demo` only; --only-deps:
#                    `make deps` only (scripts/install-deps.sh), then list the OpenCL
#                    devices it brought in (clinfo -l)
#
# Prints the time each phase took and exits non-zero when one fails. Everything it mounts
# is unmounted and every process started inside the root is stopped on exit, failure
# included.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repo=$here
ref=HEAD
base=/var/tmp
mirror=
keep=0
targets=(test demo)

while [[ $# -gt 0 ]]; do
  case "$1" in
    --ref) ref=$2; shift 2 ;;
    --dir) base=$2; shift 2 ;;
    --mirror) mirror=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --only-test) targets=(test); shift ;;
    --only-demo) targets=(demo); shift ;;
    --only-deps) targets=(deps); shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fresh-machine-check: unknown option $1" >&2; exit 2 ;;
    *) repo=$1; shift ;;
  esac
done

log() { echo "fresh-machine-check: $*"; }
die() { echo "fresh-machine-check: $*" >&2; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, mount and chroot)"

if [[ -z "$mirror" ]]; then
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [[ -n "$mirror" ]] || mirror=http://deb.debian.org/debian
fi
ca_bundle=/etc/ssl/certs/ca-certificates.crt

# A local repository is cloned from its git directory (the common one for a worktree), bound
# read-only into the root; the ref is resolved here, so uncommitted changes are not seen.
local_repo=0
if [[ -d "$repo" ]]; then
  local_repo=1
  repo=$(cd "$repo" && pwd)
  git_dir=$(cd "$repo" && cd "$(git rev-parse --git-common-dir)" && pwd)
  commit=$(git -C "$repo" rev-parse --verify "$ref^{commit}") || die "no commit $ref in $repo"
  log "repository $repo at $ref ($commit)"
else
  commit=$ref
  log "repository $repo at $ref"
fi

# ---------------------------------------------------------------- timing
t_start=$(date +%s)
phase_names=()
phase_secs=()
phase_t0=0
current=
phase() {  # phase NAME: ends the current phase, starts the next
  local now
  now=$(date +%s)
  if [[ -n "$current" ]]; then
    phase_names+=("$current")
    phase_secs+=($((now - phase_t0)))
    log "phase '$current' took $(fmt_secs $((now - phase_t0)))"
  fi
  current=$1
  phase_t0=$now
  [[ -n "$current" ]] && log "=== $current ($(date -u +%H:%M:%S) UTC)"
  return 0
}
fmt_secs() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# ---------------------------------------------------------------- clean-up
root=
cleanup() {
  local rc=$?
  set +e
  if [[ -n "$current" ]]; then
    local failed=$current
    phase ""
    [[ $rc -ne 0 ]] && log "FAILED in phase '$failed' (exit status $rc)"
  fi
  if [[ -n "$root" && -d "$root" ]]; then
    # Processes started inside the root (a virtual X server, a browser, ...): stop them.
    local pids=() p
    for p in /proc/[0-9]*; do
      if [[ "$(readlink "$p/root" 2>/dev/null)" == "$root" ]]; then pids+=("${p#/proc/}"); fi
    done
    if [[ ${#pids[@]} -gt 0 ]]; then
      log "stopping processes left in the root: ${pids[*]}"
      kill -TERM "${pids[@]}" 2>/dev/null
      sleep 2
      kill -KILL "${pids[@]}" 2>/dev/null
    fi
    # Unmount everything under the root, deepest first.
    local mounts
    mounts=$(awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r)
    for m in $mounts; do
      awk -v m="$m" '$2 == m { found = 1 } END { exit !found }' /proc/self/mounts || continue
      umount -R "$m" 2>/dev/null || umount -R -l "$m" 2>/dev/null || log "could not unmount $m"
    done
    if awk -v r="$root" 'index($2, r "/") == 1 { found = 1 } END { exit !found }' /proc/self/mounts; then
      log "something is still mounted under $root: not removing it"
    elif [[ $keep -eq 1 ]]; then
      log "root kept at $root"
    else
      rm -rf --one-file-system "$root"
    fi
  fi
  local total=$(( $(date +%s) - t_start ))
  log "time per phase:"
  local i
  for i in "${!phase_names[@]}"; do
    printf 'fresh-machine-check:   %-22s %s\n' "${phase_names[$i]}" "$(fmt_secs "${phase_secs[$i]}")"
  done
  printf 'fresh-machine-check:   %-22s %s\n' "total" "$(fmt_secs $total)"
  if [[ $rc -eq 0 ]]; then log "PASSED"; else log "FAILED"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- the root
phase "debootstrap"
if ! command -v debootstrap >/dev/null 2>&1; then
  log "installing debootstrap on this machine"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends debootstrap >/dev/null; }
fi
mkdir -p "$base"
root=$(mktemp -d "$(cd "$base" && pwd)/tensorir-fresh.XXXXXX")
chmod 755 "$root"
log "root $root, mirror $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { tail -n 30 "$root.debootstrap.log" >&2; rm -f "$root.debootstrap.log"; die "debootstrap failed"; }
rm -f "$root.debootstrap.log"

# The registries are reached through a TLS proxy whose CA only this machine's bundle has:
# the root gets the bundle where Debian keeps it, a copy that a reinstalled ca-certificates
# package keeps, and apt, npm, Node.js and git are pointed at it.
[[ -f "$ca_bundle" ]] || die "no $ca_bundle on this machine"
mkdir -p "$root/etc/ssl/certs" "$root/usr/local/share/ca-certificates"
cp "$ca_bundle" "$root/etc/ssl/certs/ca-certificates.crt"
cp "$ca_bundle" "$root/etc/ssl/host-ca-bundle.crt"
cp "$ca_bundle" "$root/usr/local/share/ca-certificates/host-ca-bundle.crt"
echo 'Acquire::https::CAInfo "/etc/ssl/host-ca-bundle.crt";' >"$root/etc/apt/apt.conf.d/90host-ca"
echo 'cafile=/etc/ssl/host-ca-bundle.crt' >"$root/etc/npmrc"
# The same package sources as this machine (bookworm-updates and -security included), and
# its apt acquire settings for them (a snapshot mirror's Release files may have expired).
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
  cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/debian.sources"
  : >"$root/etc/apt/sources.list"
fi
apt-config dump 2>/dev/null | grep -E '^Acquire::(Check-Valid-Until|Check-Date) ' \
  >"$root/etc/apt/apt.conf.d/90host-acquire" || true
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# minbase has no /etc/hosts (netbase is not in it), so "localhost" would not resolve there;
# an installed Debian 12 has this one.
if [[ ! -f "$root/etc/hosts" ]]; then
  printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n' \
    >"$root/etc/hosts"
fi
# Packages installed in the root start no services there (a chroot's usual policy).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
if ! mountpoint -q "$root/dev/shm"; then
  mkdir -p "$root/dev/shm"
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
fi
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"

# A command in the root, with a new user's environment (plus the CA bundle). It runs in the
# background and is waited for, so that a signal reaches the clean-up at once.
in_root() {
  nice -n 19 chroot "$root" /usr/bin/env -i \
    HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_EXTRA_CA_CERTS=/etc/ssl/host-ca-bundle.crt npm_config_cafile=/etc/ssl/host-ca-bundle.crt \
    GIT_SSL_CAINFO=/etc/ssl/host-ca-bundle.crt \
    "$@" </dev/null &
  wait $!
}

phase "git and make"
in_root bash -c 'export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends git make >/dev/null'
in_root bash -c 'git --version && make --version | head -n 1'

phase "clone"
src=/root/tensorir
if [[ $local_repo -eq 1 ]]; then
  mkdir -p "$root/mnt/origin.git"
  mount --bind "$git_dir" "$root/mnt/origin.git"
  mount -o remount,bind,ro "$root/mnt/origin.git"
  in_root git -c safe.directory='*' clone -q --no-checkout file:///mnt/origin.git "$src"
  in_root git -C "$src" -c advice.detachedHead=false checkout -q "$commit"
  umount "$root/mnt/origin.git"
else
  in_root git clone -q --no-checkout "$repo" "$src"
  in_root git -C "$src" -c advice.detachedHead=false checkout -q "$commit"
fi
in_root git -C "$src" log -1 --format='%h %s'

for t in "${targets[@]}"; do
  phase "make $t"
  in_root bash -c "cd $src && make $t"
  [[ $t == deps ]] && in_root clinfo -l
done
phase ""
