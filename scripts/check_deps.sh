#!/usr/bin/env bash
# check_deps.sh BUILD_DIR — every library and build tool a configured build uses comes from a
# Debian package that the matching bootstrap mode installs: `scripts/bootstrap.sh --demo` for the
# sluice binary (what `make demo` builds), the full bootstrap for every other target (tests,
# fuzzers, benchmarks). A dependency added to CMakeLists.txt but not to bootstrap.sh passes on a
# machine where an earlier session installed it and fails on a fresh one; this finds it on any
# machine that has the package (issue 20: hiredis was missing from the demo mode).
#
# What it reads: each target's link line (BUILD_DIR/CMakeFiles/*.dir/link.txt: absolute library
# paths and -lNAME), the .pc files of every pkg_check_modules prefix whose libraries a target
# links, and the compilers, make, cmake and pkg-config from CMakeCache.txt. Each file is mapped to
# its package with dpkg -S; a package counts as installed by a mode when it is in that mode's list
# or in the dependency closure of the list (apt-cache depends --recurse). Files inside the source
# or build tree (DuckDB under third_party/, fetched from npm) are skipped.
# Env: CHECK_DEPS_DEMO, CHECK_DEPS_FULL — files with the package lists instead of bootstrap.sh's
# (the lint's own test removes a package and expects a failure).
# Exit 0 when all map; 1 with one line per missing package (which target, which file, which mode).
set -euo pipefail
build=${1:?usage: check_deps.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
cache="$build/CMakeCache.txt"
[ -f "$cache" ] || { echo "check_deps: $cache missing; configure first (cmake -S . -B $1)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

list() { # list MODE: the mode's packages, from the override file or bootstrap.sh
    local var="CHECK_DEPS_${1^^}"
    if [ -n "${!var:-}" ]; then cat "${!var}"; else "$root/scripts/bootstrap.sh" --list-packages "$1"; fi
}
for mode in demo full; do
    list "$mode" >"$work/$mode.list"
    # The closure: every package name apt-cache visits from the list (virtual names in <> too).
    # shellcheck disable=SC2046
    apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances $(cat "$work/$mode.list") 2>/dev/null |
        sed -n 's/^<\{0,1\}\([^ <>]*\)>\{0,1\}$/\1/p' | cat - "$work/$mode.list" | sort -u >"$work/$mode.closure"
    [ -s "$work/$mode.closure" ] || { echo "check_deps: apt-cache knows none of the $mode packages (run apt-get update)" >&2; exit 2; }
done

cachevar() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }
# owners: FILE<TAB>PACKAGE for every file in $work/files, with one dpkg -S call (a call scans
# every package's file list: once per file would take minutes). usrmerge: a library found in
# /usr/lib may be listed under /lib, and a tool's symlink under its target's name.
owners() {
    local f real alt
    while read -r f; do
        real=$(readlink -f "$f" 2>/dev/null || echo "$f")
        for alt in "$f" "${f#/usr}" "/usr$f" "$real" "${real#/usr}" "/usr$real"; do
            printf '%s\t%s\n' "$alt" "$f"
        done
    done <"$work/files" | sort -u >"$work/alts"
    # shellcheck disable=SC2046
    { dpkg -S $(cut -f1 "$work/alts") 2>/dev/null || true; } | sed -n 's/^\([^:]*\)\(:[a-z0-9]*\)\{0,1\}\(, [^:]*\)*: \(\/.*\)$/\4\t\1/p' |
        sort -u -t$'\t' -k1,1 | join -t$'\t' -1 1 -2 1 - <(sort -t$'\t' -k1,1 "$work/alts") |
        awk -F'\t' '!seen[$3]++ {print $3 FS $2}' >"$work/owners"
}
need() { # need MODE TARGET FILE
    local mode=$1 target=$2 file=$3 pkg
    case $file in "$root"/* | "$build"/*) return 0 ;; esac
    pkg=$(awk -F'\t' -v f="$file" '$1 == f {print $2; exit}' "$work/owners")
    if [ -z "$pkg" ]; then
        echo "check_deps: $target uses $file, which no Debian package ships (install it with a package)"
        return 0
    fi
    grep -qxF "$pkg" "$work/$mode.closure" && return 0
    echo "check_deps: $target uses $file from package $pkg, which \`scripts/bootstrap.sh$([ "$mode" = demo ] && echo ' --demo')\` does not install: add $pkg to $([ "$mode" = demo ] && echo DEMO_PACKAGES || echo APT_PACKAGES) in scripts/bootstrap.sh"
}

declare -A resolved
resolve_l() { # resolve_l NAME: sets f to the file -lNAME links (the compiler's search), cached
    [ -n "${resolved[$1]:-}" ] || resolved[$1]=$(cc -print-file-name="lib$1.so")
    f=${resolved[$1]}
}

# uses: one line "MODE<TAB>WHO<TAB>FILE" per dependency of a target (deduplicated below, so
# dpkg -S runs once per file and mode, not once per target).
uses() {
    local var tool p pc dir target mode tok f toks
    for var in CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_MAKE_PROGRAM CMAKE_COMMAND PKG_CONFIG_EXECUTABLE; do
        tool=$(cachevar "$var")
        [ -n "$tool" ] && printf 'demo\tthe build (%s)\t%s\n' "$var" "$(readlink -f "$tool")"
    done
    for dir in "$build"/CMakeFiles/*.dir; do
        [ -f "$dir/link.txt" ] || continue
        target=$(basename "$dir" .dir)
        mode=full
        [ "$target" = sluice ] && mode=demo
        read -ra toks <"$dir/link.txt" # one command line
        for tok in "${toks[@]}"; do
            case $tok in
            -l*) resolve_l "${tok#-l}" ;;
            /*.so | /*.so.* | /*.a) f=$tok ;;
            *) continue ;;
            esac
            printf '%s\ttarget %s\t%s\n' "$mode" "$target" "$f"
            # A pkg_check_modules prefix whose library the target links: its .pc files too.
            p=${pc_prefix[$f]:-}
            if [ -n "$p" ]; then
                while read -r pc; do
                    printf '%s\ttarget %s (pkg_check_modules %s)\t%s\n' "$mode" "$target" "$p" "$pc"
                done <"$work/pc-files-$p"
            fi
        done
    done
}

prefixes=$(sed -n 's/^__pkg_config_arguments_\([A-Za-z0-9_]*\):INTERNAL=.*/\1/p' "$cache")
: >"$work/report"
declare -A pc_prefix # library file -> the pkg_check_modules prefix that found it
for p in $prefixes; do
    while read -r f; do pc_prefix[$f]=$p; done < <(sed -n "s/^pkgcfg_lib_${p}_[^:]*:FILEPATH=//p" "$cache")
    : >"$work/pc-files-$p"
    for m in $(cachevar "__pkg_config_arguments_$p" | tr ';' '\n' |
        grep -vE '^(REQUIRED|QUIET|IMPORTED_TARGET|GLOBAL|NO_CMAKE_PATH|NO_CMAKE_ENVIRONMENT_PATH)$'); do
        m=${m%%[<>=]*}
        if pc=$(pkg-config --path "$m" 2>/dev/null); then
            echo "$pc" >>"$work/pc-files-$p"
        else
            echo "check_deps: pkg-config finds no $m (pkg_check_modules $p)" >>"$work/report"
        fi
    done
done
uses | awk -F'\t' '!seen[$1 FS $3]++' >"$work/uses"
cut -f3 "$work/uses" | grep '^/' | sort -u >"$work/files"
owners
while IFS=$'\t' read -r mode who file; do
    case $file in
    /*) need "$mode" "$who" "$file" ;;
    *) echo "check_deps: $who links $file, which the compiler cannot find" ;;
    esac
done <"$work/uses" >>"$work/report"
n=$(grep -c . "$work/report" || true)
cat "$work/report"
[ "$n" -eq 0 ] || { echo "check_deps: $n dependency(ies) not installed by their bootstrap mode" >&2; exit 1; }
links=("$build"/CMakeFiles/*.dir/link.txt)
echo "check_deps: every library and tool of ${#links[@]} targets comes from its bootstrap mode"
