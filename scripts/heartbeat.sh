# Sourced by the scripts whose steps run for minutes (scripts/test.sh, scripts/run-tpcds.sh): when
# stderr is not a terminal (a CI log, a pipe, a file), a line every 20 s (EXSIM_HEARTBEAT_S) says
# the run is alive and for how long, where a terminal shows the steps' own progress.
#   . scripts/heartbeat.sh
#   heartbeat test "ctest prints each test as it ends"
# It stops with the script: at its exit, or within a second of its death (even kill -9).

heartbeat() {
  [ -t 2 ] && return 0
  # The loop, in the background, watches this script's process ($$ is the script's own in a subshell).
  (
    period=${EXSIM_HEARTBEAT_S:-20}
    n=0
    while kill -0 "$$" 2>/dev/null; do
      sleep 1
      n=$((n + 1))
      if [ $((n % period)) -eq 0 ] && kill -0 "$$" 2>/dev/null; then
        echo "$1: still running, ${n} s so far${2:+ ($2)}" >&2
      fi
    done
  ) &
  heartbeat_pid=$!
  trap 'kill "$heartbeat_pid" 2>/dev/null' EXIT
  trap 'kill "$heartbeat_pid" 2>/dev/null; exit 130' INT
  trap 'kill "$heartbeat_pid" 2>/dev/null; exit 143' TERM
}
