#!/usr/bin/env bash
# cleanroom.sh [REV] — the README's first command on a machine that has only what a fresh machine
# of the project's kind has, whatever this host has installed (issue 20: packages left by earlier
# sessions hid a missing bootstrap step from CI and from tests/cli/ctest_demo.sh).
#
#  1. A Debian bookworm root built by Debian's mmdebstrap from Debian's packages: minbase plus
#     BASE_PACKAGES (a compiler, make, cmake, git, curl, CA certificates; a strict subset of what
#     the fresh machine has, so a step that leans on anything else fails here), and Node.js with
#     npm as the fresh machine has them: not from Debian but installed beside it (a nodesource
#     build of Node 20 with npm 11), so the host's node binary and its npm are copied in. The
#     root is cached as a directory outside the repository (CLEANROOM_CACHE, default
#     /var/cache/sluice-cleanroom), keyed by the package list, the sources, the Node and npm
#     versions and this recipe: a change of any of them builds a new one; nothing of the project
#     is in it.
#  2. A fresh copy of that root per run (an overlay on the cached one, or a copy where overlayfs
#     is not available), so the cache stays pristine; `git clone` of REV (default HEAD) of this
#     repository into it (committed files only: no build tree, no third_party/, no node_modules).
#  3. Inside the root (chroot, with /proc, /sys, /dev and the host's resolv.conf), as a user:
#     `make demo DEMO_ADDR=127.0.0.1:PORT` in the background. It must print its banner and serve.
#  4. The MCP flow the demo prints (the MCP Inspector CLI commands: tools/list, validate_code,
#     then execute_code of the seed question with the approval token), run as printed inside the
#     root, must answer the question (five rows) with no error.
# Prints the time of each phase; exits 0 when the question was answered, 1 otherwise (with the
# demo's log), 2 when the clean room itself cannot be made (mmdebstrap missing, not root).
# Env: CLEANROOM_CACHE, CLEANROOM_DEADLINE (seconds for make demo to serve, default 2400),
#      CLEANROOM_KEEP=1 keeps the work directory.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rev=${1:-HEAD}
cache=${CLEANROOM_CACHE:-/var/cache/sluice-cleanroom}
deadline=${CLEANROOM_DEADLINE:-2400}
BASE_PACKAGES=(build-essential cmake git ca-certificates curl)
SOURCES=("deb http://deb.debian.org/debian bookworm main"
    "deb http://deb.debian.org/debian bookworm-updates main"
    "deb http://deb.debian.org/debian-security bookworm-security main")

say() { printf 'cleanroom: %s\n' "$*" >&2; }
t0=$(date +%s)
elapsed() { echo "$(($(date +%s) - t0)) s"; }
[ "$(id -u)" -eq 0 ] || { say "needs root (mmdebstrap and chroot)"; exit 2; }
command -v mmdebstrap >/dev/null || { say "mmdebstrap missing: apt-get install mmdebstrap"; exit 2; }
commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}") || { say "no commit $rev in $repo"; exit 2; }
node=$(readlink -f "$(command -v node)") || { say "no node on this host to copy in"; exit 2; }
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)

# --- 1. the base root, cached --------------------------------------------------------------
key=$( {
    printf '%s\n' "${BASE_PACKAGES[@]}" "${SOURCES[@]}"
    "$node" --version
    npm --version
    sed -n '/^# --- 1\./,/^# --- 2\./p' "$0" # this recipe itself
} | sha256sum | cut -c1-16)
base="$cache/base-$key"
if [ ! -d "$base" ]; then
    say "building the base root (mmdebstrap bookworm: ${BASE_PACKAGES[*]}; Node $("$node" --version) and npm $(npm --version) copied from this host)"
    mkdir -p "$cache"
    # Node as the fresh machine has it: the binary, npm and corepack in /usr/lib/node_modules,
    # and the same command links.
    rm -rf "$base.tmp"
    mmdebstrap --quiet --format=directory --variant=minbase --include="$(
        IFS=,
        echo "${BASE_PACKAGES[*]}"
    )" \
        --customize-hook="tar -C / -cf - ${node#/} ${npm_dir#/} | tar -C \"\$1\" -xf -" \
        --customize-hook="ln -sf $npm_dir/bin/npm-cli.js \"\$1/usr/bin/npm\"" \
        --customize-hook="ln -sf $npm_dir/bin/npx-cli.js \"\$1/usr/bin/npx\"" \
        --customize-hook="[ \"$node\" = /usr/bin/node ] || ln -sf $node \"\$1/usr/bin/node\"" \
        bookworm "$base.tmp" "${SOURCES[@]}" >&2
    mv "$base.tmp" "$base"
    # Older roots (another package list or Node) are no longer used.
    find "$cache" -mindepth 1 -maxdepth 1 -name 'base-*' ! -name "base-$key" -exec rm -rf {} +
fi
say "base root ready ($(elapsed)): $base"
# --- 2. a copy of it, the clone ---------------------------------------------------------------
work=$(mktemp -d)
root="$work/root"
mounted=()
demo_pid=
cleanup() {
    set +e # every step runs, whatever failed before (a demo that already exited has no group)
    [ -n "$demo_pid" ] && kill -- "-$demo_pid" 2>/dev/null
    # anything still running inside the root (npx, the server) before unmounting
    local p
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
    done
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null; done
    # Never rm -rf through a bind mount of the host's /dev or /sys that failed to come off.
    if grep -qF " $work/" /proc/self/mounts; then
        say "mounts under $work remain; not removing it"
    elif [ "${CLEANROOM_KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$root" "$work/upper" "$work/overlay-work"
if mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/overlay-work" "$root" 2>/dev/null; then
    mounted+=("$root")
else
    cp -a "$base/." "$root/"
fi
git clone --quiet --no-hardlinks "$repo" "$root/root/sluice"
git -C "$root/root/sluice" checkout --quiet --detach "$commit"
for m in proc sys dev dev/pts; do
    case $m in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount --rbind /sys "$root/sys" ;;
    *) mount --bind "/$m" "$root/$m" ;;
    esac
    mounted+=("$root/$m")
done
# The machine's own network setup, which a fresh machine has too (not part of the cached root,
# which holds packages only): its resolver, the local CA certificates its HTTPS egress is signed
# with, npm's configuration files (cafile and defaults) and the CA variables of its environment.
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null 2>&1
fi
for f in /etc/npmrc /usr/etc/npmrc /root/.npmrc; do
    [ -f "$f" ] && mkdir -p "$root$(dirname "$f")" && cp "$f" "$root$f"
done
machine_env=()
for v in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE REQUESTS_CA_BUNDLE; do
    [ -n "${!v:-}" ] && machine_env+=("$v=${!v}")
done
say "clean root with $(git -C "$repo" log -1 --format='%h %s' "$commit") ($(elapsed))"

inroot() { # inroot CMD: a shell in the root, with a plain environment (the machine's CA variables)
    chroot "$root" /usr/bin/env -i HOME=/root USER=root LANG=C.UTF-8 TERM=dumb "${machine_env[@]}" \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c "$1"
}

# --- 3. make demo ------------------------------------------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log="$work/demo.out"
export root
export -f inroot
setsid bash -c "machine_env=(${machine_env[*]}); inroot 'cd /root/sluice && make demo DEMO_ADDR=127.0.0.1:$port'" \
    >"$log" 2>&1 </dev/null &
demo_pid=$!
t_demo=$(date +%s)
while ! grep -q "serving sluice-demo" "$log"; do
    if ! kill -0 "$demo_pid" 2>/dev/null; then
        say "FAIL: make demo exited after $(($(date +%s) - t_demo)) s without serving; its output:"
        cat "$log" >&2
        exit 1
    fi
    if [ $(($(date +%s) - t_demo)) -ge "$deadline" ]; then
        say "FAIL: make demo did not serve within ${deadline} s (CLEANROOM_DEADLINE); its output:"
        cat "$log" >&2
        exit 1
    fi
    sleep 1
done
say "make demo serving after $(($(date +%s) - t_demo)) s"

# --- 4. the printed MCP flow, as printed, inside the root ------------------------------------
sed -n '/^Ask it from a shell/,/^$/p' "$log" | sed -n 's/^  //p' >"$root/root/commands.sh"
grep -q 'tool-name execute_code' "$root/root/commands.sh" || {
    say "FAIL: the demo printed no execute_code command:"
    cat "$log" >&2
    exit 1
}
if ! out=$(timeout 600 bash -c "machine_env=(${machine_env[*]}); inroot 'bash -e /root/commands.sh'" 2>"$work/commands.err"); then
    say "FAIL: the printed commands exited non-zero:"
    tail -20 "$work/commands.err" >&2
    exit 1
fi
if ! grep -q '"row_count": 5' <<<"$out" || grep -q '"isError": true' <<<"$out"; then
    say "FAIL: execute_code did not answer the seed question:"
    tail -30 <<<"$out" >&2
    exit 1
fi
say "make demo to first answer: $(($(date +%s) - t_demo)) s (the printed validate_code -> execute_code answered 5 rows)"
say "passed in $(elapsed)"
