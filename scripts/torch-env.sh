#!/usr/bin/env bash
# A real PyTorch for the end-to-end tests, from Debian's own packages only (no PyPI).
#
#   scripts/torch-env.sh install [--fallback-host]
#       Create, or reuse, a Debian chroot holding that suite's python3-torch. The default suite is sid
#       (torch 2.14 at the time of writing: a Kineto build whose traces carry python_function events with
#       CallFrom "file.py:LINE"); TORCHLINT_TORCH_SUITE=bookworm gives Debian 12's torch 1.13, built
#       without Kineto, whose traces are the legacy list format (op names and times only: no stacks,
#       shapes or memory events). The chroot lives outside the clone, in
#       ${TORCHLINT_TORCH_CACHE:-/var/cache/torchlint}/SUITE-root, and is reused when its stamp matches
#       this script's recipe and `import torch` works in it: a second run takes about 2 seconds.
#       --fallback-host (or TORCHLINT_TORCH_FALLBACK=host): when the chroot cannot be built, install
#       Debian 12's python3-torch 1.13 on the host itself instead (legacy traces; about 830 MB).
#   scripts/torch-env.sh status
#       Print one line: where torch is (the suite's chroot, or the host), the torch and Python versions,
#       and whether Kineto is there. Exit 0 when a torch is usable, 77 when not.
#   scripts/torch-env.sh run WORKDIR [DIR...] -- CMD [ARGS...]
#       Run CMD in WORKDIR with the torch found: the suite's chroot first, else the host's Debian 12 torch.
#       In the chroot, WORKDIR and any further DIRs are bind-mounted at the same absolute paths, so file
#       paths match the host's. The chroot gets its own /proc and a private tmpfs /dev/shm (DataLoader
#       workers need it); host /dev is never bind-mounted. It all runs in private mount and PID
#       namespaces: the mounts are unmounted on exit, and when the run ends or is killed, no process of
#       it (DataLoader workers included) outlives it. CMD runs as WORKDIR's owner, in a clean environment,
#       and its exit status is passed on.
#   scripts/torch-env.sh uninstall
#       Remove the suite's chroot and its stamp, after checking that nothing is mounted under it.
#
# Exit codes: 0 ok; 77 unavailable (not root, no debootstrap, the Debian mirror cannot be reached, or no
# torch installed): tests print "skipped:" on 77; 1 anything else that went wrong; 2 bad usage; for run,
# CMD's own status.
#
# Environment: TORCHLINT_TORCH_CACHE (cache folder), TORCHLINT_TORCH_SUITE (sid or bookworm, default
# sid), TORCHLINT_DEBIAN_MIRROR (default http://deb.debian.org/debian), TORCHLINT_TORCH_BACKEND
# (auto|chroot|host, default auto), TORCHLINT_TORCH_INSTALL_TIMEOUT (seconds for debootstrap, default
# 1200), TORCHLINT_TORCH_RUN_TIMEOUT (seconds for one run, default 600; 0 for none).
set -euo pipefail

readonly UNAVAILABLE=77
CACHE=${TORCHLINT_TORCH_CACHE:-/var/cache/torchlint}
SUITE=${TORCHLINT_TORCH_SUITE:-sid}
case "$SUITE" in
  sid | unstable | bookworm) ;;  # trixie's torch 2.6 crashes under with_stack on Python 3.13 (pytorch#144094)
  *) echo "torch-env: error: TORCHLINT_TORCH_SUITE must be sid or bookworm, not '$SUITE'" >&2; exit 2 ;;
esac
# Bump the last number when the way the chroot is built changes: stamped chroots are then rebuilt.
RECIPE="debootstrap --variant=minbase --include=python3-torch $SUITE; recipe 1"
MIRROR=${TORCHLINT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
BACKEND=${TORCHLINT_TORCH_BACKEND:-auto}
INSTALL_TIMEOUT=${TORCHLINT_TORCH_INSTALL_TIMEOUT:-1200}
RUN_TIMEOUT=${TORCHLINT_TORCH_RUN_TIMEOUT:-600}
ROOT=$CACHE/$SUITE-root
STAMP=$CACHE/$SUITE-root.stamp
HOST_PYTHON=/usr/bin/python3   # Debian's python; a python3 earlier on PATH (pyenv) cannot see Debian's torch
SELF=$(readlink -f "$0")
# Printed by `status` and by the install check, inside the chroot or on the host.
PROBE='import sys, torch; print(f"torch {torch.__version__} python {sys.version.split()[0]} kineto={torch.autograd.kineto_available()}")'

say() { echo "torch-env: $*" >&2; }
unavailable() { echo "torch-env: unavailable: $*" >&2; exit "$UNAVAILABLE"; }
die() { echo "torch-env: error: $*" >&2; exit 1; }
usage() { echo "torch-env: usage: $*" >&2; exit 2; }

# Mount points at or below $1, as the kernel lists them (octal escapes left as they are).
mounts_under() {
  awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts
}

# rm -rf a chroot only when nothing is mounted under it.
safe_remove() {
  local dir=$1
  [ -e "$dir" ] || return 0
  if [ -n "$(mounts_under "$dir")" ]; then
    die "refusing to remove $dir: still mounted there: $(mounts_under "$dir" | tr '\n' ' ')"
  fi
  rm -rf --one-file-system -- "$dir"
}

chroot_ready() { [ -f "$STAMP" ] && [ -x "$ROOT/usr/bin/python3" ] && grep -qxF "recipe: $RECIPE" "$STAMP"; }
host_ready() { [ -x "$HOST_PYTHON" ] && "$HOST_PYTHON" -c 'import torch' >/dev/null 2>&1; }

# Which torch `run` and `status` use: chroot, host, or none.
pick_backend() {
  case "$BACKEND" in
    chroot) chroot_ready && echo chroot || echo none ;;
    host) host_ready && echo host || echo none ;;
    auto) if chroot_ready; then echo chroot; elif host_ready; then echo host; else echo none; fi ;;
    *) die "TORCHLINT_TORCH_BACKEND must be auto, chroot or host, not '$BACKEND'" ;;
  esac
}

# A private mount namespace, and a PID namespace whose processes are all killed when it ends.
in_namespaces() {
  unshare --mount --propagation private --pid --fork --kill-child -- "$@"
}
# The same, for run: unshare's parent ignores SIGINT and SIGTERM while it waits, so a signal for this
# script (a test's timeout, Ctrl-C) is turned into SIGKILL for unshare, whose --kill-child then ends the
# namespace's process 1 and with it every process in the namespace; its mounts go with it.
in_namespaces_killable() {
  local pid rc=0
  exec 3<&0
  unshare --mount --propagation private --pid --fork --kill-child -- "$@" <&3 3<&- &
  pid=$!
  exec 3<&-
  trap 'kill -KILL "$pid" 2>/dev/null || true' INT TERM HUP
  wait "$pid" || rc=$?
  while kill -0 "$pid" 2>/dev/null; do wait "$pid" || rc=$?; done
  trap - INT TERM HUP
  return "$rc"
}

# ---- run ------------------------------------------------------------------------------------------------

# Runs as process 1 of its own mount and PID namespaces (see in_namespaces): mounts made here are never
# seen by the host and vanish with the namespace, and so do the command's processes (DataLoader workers
# included) when it ends or is killed; the trap unmounts explicitly all the same.
# Arguments: ROOT WORKDIR DIR... -- CMD...; WORKDIR "-" binds nothing and runs in the chroot's /tmp.
MOUNTED=()
inner_run() {
  local root=$1 workdir=$2; shift 2
  local dirs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do dirs+=("$1"); shift; done
  shift
  cleanup() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
      umount "${MOUNTED[i]}" 2>/dev/null || umount -l "${MOUNTED[i]}" 2>/dev/null || true
    done
    MOUNTED=()
  }
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  mount -t proc proc "$root/proc"; MOUNTED+=("$root/proc")
  mkdir -p "$root/dev/shm"
  mount -t tmpfs -o mode=1777,nosuid,nodev,size=2g tmpfs "$root/dev/shm"; MOUNTED+=("$root/dev/shm")
  local d userspec=()
  if [ "$workdir" = - ]; then
    workdir=/tmp
  else
    local real_root existing
    real_root=$(readlink -f "$root")
    for d in "$workdir" "${dirs[@]}"; do
      case "$d" in
        / | /dev | /dev/* | /proc | /proc/* | /sys | /sys/*) die "will not bind-mount $d into the chroot" ;;
      esac
      # The mount point must stay inside the chroot: an absolute symlink there (var/run -> /run) would
      # lead mkdir and mount out to the host's tree.
      existing=$root$d
      while [ ! -e "$existing" ]; do existing=$(dirname "$existing"); done
      case "$(readlink -f "$existing")/" in
        "$real_root"/*) ;;
        *) die "cannot bind-mount $d: $existing leads out of the chroot" ;;
      esac
      mkdir -p "$root$d"
      mount --bind "$d" "$root$d"; MOUNTED+=("$root$d")
    done
    # Run as the owner of WORKDIR, so that what the command writes there can be removed without root.
    d=$(stat -c %u:%g "$workdir")
    [ "$d" = 0:0 ] || userspec=(--userspec="$d")
  fi
  local limit=()
  [ "$RUN_TIMEOUT" = 0 ] || limit=(timeout --kill-after=10 "$RUN_TIMEOUT")

  # A clean environment: nothing of the host's Python set-up (pyenv, PYTHONPATH) leaks in.
  local env=(HOME=/tmp LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin)
  local v
  for v in OMP_NUM_THREADS OPENBLAS_NUM_THREADS MKL_NUM_THREADS PYTHONUNBUFFERED; do
    [ -z "${!v:-}" ] || env+=("$v=${!v}")
  done
  local rc=0
  # shellcheck disable=SC2016  # $1 and $@ are for the inner sh
  "${limit[@]}" chroot "${userspec[@]}" "$root" /usr/bin/env -i "${env[@]}" \
    /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$workdir" "$@" || rc=$?
  cleanup
  return "$rc"
}

cmd_run() {
  [ $# -ge 1 ] || usage "torch-env.sh run WORKDIR [DIR...] -- CMD [ARGS...]"
  local dirs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    [ -d "$1" ] || die "not a directory: $1"
    dirs+=("$(readlink -f "$1")"); shift
  done
  [ $# -ge 2 ] || usage "torch-env.sh run WORKDIR [DIR...] -- CMD [ARGS...]"
  shift
  [ ${#dirs[@]} -ge 1 ] || usage "torch-env.sh run WORKDIR [DIR...] -- CMD [ARGS...]"

  case "$(pick_backend)" in
    chroot)
      [ "$(id -u)" -eq 0 ] || unavailable "running in the $SUITE chroot needs root (uid $(id -u))"
      in_namespaces_killable "$SELF" __inner_run "$ROOT" "${dirs[@]}" -- "$@"
      ;;
    host)
      say "using the host's Debian 12 torch (legacy traces: no stacks, shapes or memory events)"
      local limit=()
      [ "$RUN_TIMEOUT" = 0 ] || limit=(timeout --kill-after=10 "$RUN_TIMEOUT")
      # /usr/bin first: python3 must be Debian's, which sees /usr/lib/python3/dist-packages/torch.
      (cd "${dirs[0]}" && PATH=/usr/bin:/bin:$PATH "${limit[@]}" "$@")
      ;;
    *) unavailable "no torch installed (run scripts/torch-env.sh install as root)" ;;
  esac
}

# ---- status ---------------------------------------------------------------------------------------------

cmd_status() {
  local line
  case "$(pick_backend)" in
    chroot)
      [ "$(id -u)" -eq 0 ] || unavailable "$SUITE chroot at $ROOT, but running in it needs root"
      line=$(TORCHLINT_TORCH_RUN_TIMEOUT=120 in_namespaces "$SELF" __inner_run "$ROOT" - -- \
               python3 -W ignore -c "$PROBE" 2>/dev/null | tail -n 1) ||
        die "$SUITE chroot at $ROOT: import torch failed (reinstall: scripts/torch-env.sh uninstall && scripts/torch-env.sh install)"
      echo "$SUITE $line root=$ROOT"
      ;;
    host)
      line=$("$HOST_PYTHON" -W ignore -c "$PROBE" 2>/dev/null | tail -n 1) || die "host: import torch failed"
      echo "host $line python=$HOST_PYTHON (legacy traces)"
      ;;
    *) unavailable "no torch installed: no $SUITE chroot at $ROOT and no torch for $HOST_PYTHON (run scripts/torch-env.sh install as root)" ;;
  esac
}

# ---- install --------------------------------------------------------------------------------------------

mirror_reachable() {
  local url=$MIRROR/dists/$SUITE/Release
  if command -v curl >/dev/null 2>&1; then
    curl -fsS -o /dev/null --max-time 20 "$url" 2>/dev/null
  elif command -v wget >/dev/null 2>&1; then
    wget -q -T 20 -t 1 -O /dev/null "$url"
  else
    return 1
  fi
}

# Build the chroot into a temporary folder, check it, then move it in place and write the stamp.
# Returns 77 for "impossible here", 1 for a failed build.
install_chroot() {
  if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap with apt-get"
    { DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq debootstrap >/dev/null 2>&1 ||
      { timeout 300 apt-get update -qq >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq debootstrap >/dev/null 2>&1; }; } ||
      { say "unavailable: cannot install debootstrap with apt-get"; return "$UNAVAILABLE"; }
  fi
  if ! mirror_reachable; then
    say "unavailable: cannot reach the Debian mirror $MIRROR (dists/$SUITE/Release)"
    return "$UNAVAILABLE"
  fi

  local tmp=$ROOT.partial log=$CACHE/$SUITE-root.log
  safe_remove "$tmp"   # a build that was cut short; nothing can be mounted there (see below)
  say "building the $SUITE chroot in $ROOT (2 to 5 minutes, about 1.5 GB; log: $log)"
  local t0=$SECONDS
  # In a private mount namespace, so the proc/sys mounts debootstrap makes cannot outlive it.
  if ! timeout --kill-after=30 "$INSTALL_TIMEOUT" unshare --mount --propagation private -- \
       debootstrap --variant=minbase --include=python3-torch "$SUITE" "$tmp" "$MIRROR" >"$log" 2>&1; then
    say "debootstrap failed or ran past ${INSTALL_TIMEOUT}s; last lines of $log:"
    tail -n 15 "$log" >&2
    return 1
  fi
  # The downloaded .debs (about 250 MB) are not needed any more.
  rm -f "$tmp"/var/cache/apt/archives/*.deb
  local probe
  if ! probe=$(TORCHLINT_TORCH_RUN_TIMEOUT=300 in_namespaces "$SELF" __inner_run "$tmp" - -- \
                 python3 -W ignore -c "$PROBE" 2>>"$log" | tail -n 1) ||
     [ -z "$probe" ]; then
    say "the new chroot cannot import torch; see $log"
    return 1
  fi
  # (set -e does not apply in here: install_chroot runs on the left of ||.)
  safe_remove "$ROOT"
  mv "$tmp" "$ROOT" || { say "cannot move $tmp to $ROOT"; return 1; }
  {
    echo "recipe: $RECIPE"
    echo "mirror: $MIRROR"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $((SECONDS - t0)) s"
    echo "probe: $probe"
  } >"$STAMP" || { say "cannot write $STAMP"; return 1; }
  say "$SUITE chroot ready in $((SECONDS - t0)) s: $probe"
}

install_host() {
  say "installing Debian 12's python3-torch on the host (about 4 minutes, 830 MB; legacy traces only)"
  { DEBIAN_FRONTEND=noninteractive timeout "$INSTALL_TIMEOUT" apt-get install -y -qq python3-torch >/dev/null 2>&1 ||
    { timeout 300 apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive timeout "$INSTALL_TIMEOUT" apt-get install -y -qq python3-torch >/dev/null 2>&1; }; } ||
    { say "unavailable: apt-get could not install python3-torch"; return "$UNAVAILABLE"; }
  host_ready || { say "python3-torch is installed but $HOST_PYTHON cannot import torch"; return 1; }
  say "host torch ready: $("$HOST_PYTHON" -W ignore -c "$PROBE" 2>/dev/null | tail -n 1)"
}

cmd_install() {
  local fallback=${TORCHLINT_TORCH_FALLBACK:-none}
  while [ $# -gt 0 ]; do
    case "$1" in
      --fallback-host) fallback=host ;;
      *) usage "torch-env.sh install [--fallback-host]" ;;
    esac
    shift
  done
  [ "$(id -u)" -eq 0 ] || unavailable "debootstrap and chroot need root (uid $(id -u))"
  mkdir -p "$CACHE"
  # One install at a time; a second caller waits for the first and then reuses its chroot.
  exec 9>"$CACHE/.$SUITE.lock"
  flock -w "$((INSTALL_TIMEOUT + 120))" 9 || die "another install holds $CACHE/.$SUITE.lock"

  if chroot_ready; then
    if TORCHLINT_TORCH_BACKEND=chroot "$SELF" status >/dev/null 2>&1; then
      say "reusing the $SUITE chroot at $ROOT ($(sed -n 's/^probe: //p' "$STAMP"))"
      return 0
    fi
    say "the $SUITE chroot at $ROOT is stamped but cannot import torch: rebuilding it"
    rm -f "$STAMP"
  fi
  local rc=0
  install_chroot || rc=$?
  [ "$rc" -ne 0 ] || return 0
  if [ "$fallback" = host ]; then
    if host_ready; then
      say "the $SUITE chroot failed; the host's Debian 12 torch is already installed (legacy traces only)"
      return 0
    fi
    install_host
    return
  fi
  return "$rc"
}

cmd_uninstall() {
  [ "$(id -u)" -eq 0 ] || unavailable "removing $ROOT needs root"
  rm -f "$STAMP"
  safe_remove "$ROOT.partial"
  safe_remove "$ROOT"
  say "removed $ROOT"
}

# In braces, with exit: bash parses the whole block before running it, so editing this file while an
# install runs cannot make the running shell read the edited text.
{
  case "${1:-}" in
    install) shift; cmd_install "$@" ;;
    status) shift; cmd_status ;;
    run) shift; cmd_run "$@" ;;
    uninstall) shift; cmd_uninstall ;;
    __inner_run) shift; inner_run "$@" ;;
    *) sed -n '2,/^set -euo/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
  exit
}
