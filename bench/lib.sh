# lib.sh -- the part the benchmark scripts (bench/*/run.sh) share. A script
# sets $here to its own directory, then sources this file:
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/../lib.sh"

# bench_setup NAME RUNS RES [BUILD [RUNS [RES]]]: from the script's own
# arguments [BUILD] [RUNS] [RES] (defaults: build, and the RUNS and RES given
# first) set $root (the source tree), $build, $runs, $res, $work and $cc;
# create the work folder ($BENCH_WORK, default BUILD/bench-NAME), enter it,
# and point generated programs at the runtime in BUILD.
bench_setup() {
  _name=$1 _runs=$2 _res=$3
  shift 3
  root=$(cd "$here/../.." && pwd)
  build=$(cd "${1:-build}" && pwd)
  runs=${2:-$_runs}
  res=${3:-$_res}
  work=${BENCH_WORK:-$build/bench-$_name}
  cc=${CC:-cc}
  mkdir -p "$work"
  cd "$work"
  export DIDEROT_RT_DIR="$build"
}

bench_load() { cut -d' ' -f1-3 /proc/loadavg; }
bench_date() { date -u '+%Y-%m-%d %H:%M UTC'; }
bench_cflags() { echo "${CFLAGS_DIDEROT:--O3 -march=native}"; }

# bench_machine EXTRA: the "machine:" line that heads a report, EXTRA last.
bench_machine() {
  echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); $1"
}

# bench_seq_omp SRC OUT: build SRC as the executables OUT (seq target) and
# OUT_omp (omp target) and print how long each build took.
bench_seq_omp() {
  _t0=$(date +%s.%N)
  "$build/diderotc" --exec "$1" -o "$2"
  _t1=$(date +%s.%N)
  "$build/diderotc" --exec --target=omp "$1" -o "$2_omp"
  _t2=$(date +%s.%N)
  printf "compile (diderotc + cc): seq %.2f s, omp %.2f s\n" \
    "$(echo "$_t1 - $_t0" | bc)" "$(echo "$_t2 - $_t1" | bc)"
}
