#!/bin/sh
# A stand-in for an external compiler, for kiln precompile's tests:
#   fake-compiler.sh MODE INPUT OUTPUT [FLAGS...]
# ok: writes an artifact (a line, then the input); slow: the same after
# $KILN_TEST_DELAY seconds; fail: a compile error; hang: never ends;
# nothing: exits 0 without an artifact; hold: writes its pid to
# $KILN_TEST_PID_FILE and waits to be killed; spawn: starts a process of
# its own, writes that one's pid, and waits; die-once: as hold the first
# time ($KILN_TEST_MARKER absent), ok after; big: prints 4 MB, then fails;
# link: makes the output a link to $KILN_TEST_TARGET; fifo, directory: makes
# it one; large: writes 10 KB; fail-escapes: fails printing terminal
# escape codes; fill: writes 3 MB (and fails without a word
# if it cannot); escape-MODE: first starts a process that leaves both its
# process group and its parent (setsid, in a double fork: no group kill
# reaches it, and init would adopt it), writes that one's pid to
# $KILN_TEST_PID_FILE, then does MODE. Each call appends
# "MODE FLAGS" to $KILN_TEST_COMPILE_LOG when it is set.
mode=$1 input=$2 output=$3
shift 3
if [ -n "$KILN_TEST_COMPILE_LOG" ]; then
  echo "$mode $*" >> "$KILN_TEST_COMPILE_LOG"
fi
case $mode in
  escape-*)
    ( setsid sh -c 'echo $$ > "$KILN_TEST_PID_FILE"; exec sleep 600' & )
    for _ in $(seq 250); do [ -s "$KILN_TEST_PID_FILE" ] && break; sleep 0.02; done
    mode=${mode#escape-} ;;
esac
artifact() {
  head -n 1 "$input" | grep -q '^HloModule' ||
    { echo "$input:1:1: error: the input is not HLO text" >&2; exit 1; }
  { echo "fake artifact $*"; cat "$input"; } > "$output"
}
case $mode in
  ok) artifact "$@" ;;
  slow) sleep "${KILN_TEST_DELAY:-0.3}"; artifact "$@" ;;
  fail)
    echo "compiling $input"
    echo "$input:5:3: error: fake-compiler cannot compile 'add'" >&2
    exit 1 ;;
  hang) exec sleep 600 ;;
  nothing) exit 0 ;;
  link) ln -s "$KILN_TEST_TARGET" "$output" ;;
  fifo) mkfifo "$output" ;;
  directory) mkdir "$output" ;;
  large) head -c 10000 /dev/zero | tr '\0' 'x' > "$output" ;;
  fail-escapes)
    printf 'plain\tline\n\033[31mred\033]0;title\007\n' >&2
    echo "$input:5:3: error: fake-compiler failed in color" >&2
    exit 1 ;;
  fill)
    # Writes 3 MB, or fails silently as a compiler whose disk is full may.
    head -c 3000000 /dev/zero > "$output" 2> /dev/null || exit 1
    artifact "$@" ;;
  big)
    head -c 4000000 /dev/zero | tr '\0' 'x' | fold -w 100
    echo "$input:1:1: error: fake-compiler failed after a lot of output" >&2
    exit 1 ;;
  hold) echo $$ > "$KILN_TEST_PID_FILE"; exec sleep 600 ;;
  spawn)
    # Starts a process of its own and waits: the process a driver must
    # stop with its worker.
    sleep 600 &
    echo $! > "$KILN_TEST_PID_FILE"
    wait ;;
  die-once)
    if [ ! -e "$KILN_TEST_MARKER" ]; then
      touch "$KILN_TEST_MARKER"
      echo $$ > "$KILN_TEST_PID_FILE"
      exec sleep 600
    fi
    artifact "$@" ;;
  *) echo "fake-compiler: unknown mode $mode" >&2; exit 2 ;;
esac
