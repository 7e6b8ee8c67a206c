#!/usr/bin/env bash
# man.sh SLUICE OUT — writes the man page sluice(1) from the binary's own --help texts, so the
# page and `sluice CMD --help` never disagree (run by the build: CMakeLists.txt).
set -euo pipefail
bin=$1 out=$2
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"; }
{
    echo '.TH SLUICE 1 "" "sluice" "User Commands"'
    echo '.SH NAME'
    echo 'sluice \- governed code mode gateway for the Model Context Protocol'
    echo '.SH SYNOPSIS'
    echo '.B sluice'
    echo '\fIcommand\fR [\fIoptions\fR]'
    echo '.SH DESCRIPTION'
    echo '.nf'
    "$bin" --help | esc
    echo '.fi'
    echo '.SH COMMANDS'
    for c in $("$bin" --help | awk '/^commands:/{f=1;next} f&&/^  [a-z]/{print $1}'); do
        echo ".SS $c"
        echo '.nf'
        "$bin" "$c" --help | esc
        echo '.fi'
    done
    echo '.SH EXIT STATUS'
    echo '0 success; 1 the thing checked is wrong or refused; 2 usage error; 3 runtime failure.'
    echo '.SH VERSION'
    "$bin" --version | esc
} >"$out"
