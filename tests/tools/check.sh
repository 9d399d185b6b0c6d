# Shared by the shell test scripts of tests/tools (sourced): a scratch
# directory removed at exit, and pass/fail counting that ends in the
# suite's "N passed, M failed" line.
#
#   ok NAME            count a pass
#   fail NAME          count a failure (NAME says why)
#   check NAME EXPR    ok if the shell expression EXPR (eval'd) is true
#   check_run NAME CMD [ARG...]  ok if the command succeeds (no eval, so
#                      arguments need no second quoting)
#   finish             print the summary; exit status 1 if any failed

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
check() { if eval "$2"; then ok "$1"; else fail "$1"; fi; }
check_run() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else fail "$name"; fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
